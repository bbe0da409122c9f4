package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Connections beyond the per-address cap are answered 503 in the route's shape and closed. */
class ConnectionCapsTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true, ", max_connections_per_address: 3");

    static final String MODELS = "GET /v1/models HTTP/1.1\r\nHost: x\r\nx-api-key: " + GatewayFixture.KEY
            + "\r\nConnection: close\r\n\r\n";

    @Test
    void aConnectionBeyondThePerAddressCapIs503AndClosedAndTheSlotComesBackWhenOneCloses() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket("127.0.0.1", f.gateway.port());
                held.add(s);
                // Answered, so the gateway has surely counted it (a connect alone may still be in its accept queue).
                s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(ErrorsTest.readUntil(s.getInputStream(), "\"status\":\"ok\"")).startsWith("HTTP/1.1 200");
            }
            RawClient.Answer over = RawClient.exchange(f.gateway.port(), MODELS, 5_000);
            assertThat(over.status()).isEqualTo(503);
            assertThat(over.text()).contains("\"type\":\"error\"", "too_many_connections").doesNotContain(GatewayFixture.KEY);
            assertThat(over.closed()).isTrue();
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        // The closes reach the gateway asynchronously: a bounded number of tries until a slot is free again.
        int status = -1;
        for (int i = 0; i < 100 && status != 200; i++) {
            status = RawClient.exchange(f.gateway.port(), MODELS, 5_000).status();
        }
        assertThat(status).isEqualTo(200);
    }
}
