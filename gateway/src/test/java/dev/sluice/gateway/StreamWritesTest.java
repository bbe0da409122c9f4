package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Events that arrive from the provider in one read leave for the client in one write: one HTTP
 * chunk, not one per event (each of which would be its own system call and TCP segment).
 */
class StreamWritesTest {

    static GatewayFixture f;

    @BeforeAll
    static void start() throws Exception {
        f = new GatewayFixture();
    }

    @AfterAll
    static void stop() throws Exception {
        f.close();
    }

    @Test
    void eventsOfOneUpstreamReadReachTheClientAsOneChunk() throws Exception {
        List<String> chunks = new ArrayList<>();
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            OutputStream out = s.getOutputStream();
            out.write(ErrorsTest.rawRequest(ErrorsTest.chat("fake-batched-stream", ",\"stream\":true"))
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            readLine(in); // status line
            while (!readLine(in).isEmpty()) {
                // headers
            }
            for (int size; (size = Integer.parseInt(readLine(in), 16)) > 0; ) {
                chunks.add(new String(in.readNBytes(size), StandardCharsets.UTF_8));
                readLine(in);
            }
        }
        f.awaitBalanced();

        // Five upstream chunks; the usage chunk the client did not ask for is withheld.
        String body = String.join("", chunks);
        assertThat(body).isEqualTo(FakeUpstream.BATCHED_EVENTS.get(0) + FakeUpstream.BATCHED_EVENTS.get(1)
                + FakeUpstream.BATCHED_EVENTS.get(2) + FakeUpstream.BATCHED_EVENTS.get(4));
        // One upstream read gives one chunk; allow a second in case the kernel split the upstream's write.
        assertThat(chunks).hasSizeLessThanOrEqualTo(2);
    }

    private static String readLine(InputStream in) throws Exception {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) != -1; ) {
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
