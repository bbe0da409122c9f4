package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code server.max_connections} counts over every address: with three open from three loopback
 * addresses, a fourth from a fourth address is answered 503 in its route's shape and closed; a
 * connection beyond a cap that sends nothing is closed within a second
 * ({@code ClientConnections.OVER_CAP_HEAD_MILLIS}), not after the whole header timeout.
 */
class TotalConnectionCapTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true, ", max_connections: 3, header_timeout: 30s");

    private static Socket from(String address) throws IOException {
        return new Socket(InetAddress.getByName("127.0.0.1"), f.gateway.port(), InetAddress.getByName(address), 0);
    }

    /** Three connections from three addresses, each answered once so that the gateway surely counts it. */
    private static List<Socket> fillTheCap() throws IOException {
        List<Socket> held = new ArrayList<>();
        for (int i = 2; i <= 4; i++) {
            Socket s = from("127.0.0." + i);
            held.add(s);
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(ErrorsTest.readUntil(s.getInputStream(), "\"status\":\"ok\"")).startsWith("HTTP/1.1 200");
        }
        return held;
    }

    private static void closeAll(List<Socket> held) throws IOException {
        for (Socket s : held) {
            s.close();
        }
    }

    @Test
    void aConnectionBeyondTheTotalCapFromAnotherAddressIs503AndClosed() throws Exception {
        List<Socket> held = fillTheCap();
        try (Socket over = from("127.0.0.5")) {
            over.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + GatewayFixture.KEY + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                    .getBytes(StandardCharsets.US_ASCII));
            RawClient.Answer a = RawClient.read(over, 5_000);
            assertThat(a.status()).isEqualTo(503);
            assertThat(a.text()).contains("\"error\":{", "too_many_connections").doesNotContain(GatewayFixture.KEY);
            assertThat(a.closed()).isTrue();
        } finally {
            closeAll(held);
        }
    }

    @Test
    void aSilentConnectionBeyondTheCapIsClosedWithinASecond() throws Exception {
        List<Socket> held = fillTheCap();
        try (Socket over = from("127.0.0.6")) {
            long start = System.nanoTime();
            RawClient.Answer a = RawClient.read(over, 10_000);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(a.closed()).isTrue();
            assertThat(a.text()).isEmpty();
            // The header timeout is 30 s: closed at the second, with room for a loaded machine.
            assertThat(millis).isLessThan(8_000);
        } finally {
            closeAll(held);
        }
    }
}
