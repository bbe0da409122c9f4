package dev.sluice.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A client on a bare socket, for bytes an HTTP library refuses to send: writes what it is given
 * and reads what comes back until the gateway closes the connection or {@code waitMillis} pass in
 * silence.
 */
final class RawClient {

    /** What came back, and whether the gateway closed the connection (rather than falling silent). */
    record Answer(String text, boolean closed) {

        /** How many final responses the text holds (status lines, an interim 100 Continue not counted). */
        int responses() {
            int n = 0;
            for (int i = text.indexOf("HTTP/1."); i >= 0; i = text.indexOf("HTTP/1.", i + 1)) {
                if ((i == 0 || text.startsWith("\n", i - 1)) && !text.startsWith(" 1", i + 8)) {
                    n++;
                }
            }
            return n;
        }

        /** The status of the first final response; -1 when none came. */
        int status() {
            String t = text;
            while (t.startsWith("HTTP/1.1 1") && t.contains("\r\n\r\n")) {
                t = t.substring(t.indexOf("\r\n\r\n") + 4);
            }
            return t.length() >= 12 ? Integer.parseInt(t.substring(9, 12)) : -1;
        }
    }

    private RawClient() {
    }

    static Answer exchange(int port, String request, int waitMillis) throws IOException {
        return exchange(port, request.getBytes(StandardCharsets.ISO_8859_1), waitMillis);
    }

    static Answer exchange(int port, byte[] request, int waitMillis) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(waitMillis);
            s.getOutputStream().write(request);
            s.getOutputStream().flush();
            return read(s, waitMillis);
        }
    }

    /** Reads from {@code s} until it closes or stays silent for {@code waitMillis}. */
    static Answer read(Socket s, int waitMillis) throws IOException {
        s.setSoTimeout(waitMillis);
        StringBuilder seen = new StringBuilder();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
            return new Answer(seen.toString(), true);
        } catch (SocketTimeoutException e) {
            return new Answer(seen.toString(), false);
        } catch (java.net.SocketException e) {
            return new Answer(seen.toString(), true); // reset: closed too
        }
    }
}
