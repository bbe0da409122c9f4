package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client connections that send too little, too slowly or nothing at all are closed (or, with a
 * head read, answered 408) after their timeout, so they cannot hold descriptors. The gateway here
 * has 300 ms timeouts; each test waits at most a few seconds.
 */
class ClientTimeoutsTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true,
            ", header_timeout: 300ms, body_timeout: 300ms, idle_timeout: 300ms");

    static final int WAIT = 5_000;

    @Test
    void aConnectionThatNeverSendsIsClosedAfterTheHeaderTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            RawClient.Answer a = RawClient.read(s, WAIT);
            assertThat(a.closed()).isTrue();
            assertThat(a.text()).isEmpty();
        }
    }

    @Test
    void aHeadThatNeverEndsIsClosedAfterTheHeaderTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.getOutputStream().write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nx-a: b\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(RawClient.read(s, WAIT).closed()).isTrue();
        }
    }

    @Test
    void aHeadWithoutItsBodyIs408InTheRoutesShapeAndCloses() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: " + GatewayFixture.KEY
                    + "\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                    + "{\"model\":").getBytes(StandardCharsets.US_ASCII));
            RawClient.Answer a = RawClient.read(s, WAIT);
            assertThat(a.status()).isEqualTo(408);
            assertThat(a.text()).contains("\"type\":\"error\"", "request_timeout").containsIgnoringCase("connection: close");
            assertThat(a.closed()).isTrue();
        }
        f.awaitBalanced();
    }

    @Test
    void aKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            RawClient.Answer a = RawClient.read(s, WAIT);
            assertThat(a.text()).startsWith("HTTP/1.1 200").contains("\"status\":\"ok\"");
            assertThat(a.closed()).as("closed once idle, not kept for ever").isTrue();
        }
    }

    @Test
    void aConnectionStaysOpenWhileItsAnswerTakesLongerThanTheIdleTimeout() throws Exception {
        // The hanging upstream answers nothing; the client waits for its 504 (upstream_timeout, 2 s) on a
        // connection whose own timers do not run while a request is in flight.
        RawClient.Answer a = RawClient.exchange(f.gateway.port(), "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer " + GatewayFixture.KEY + "\r\nContent-Type: application/json\r\nContent-Length: "
                + ErrorsTest.chat("fake-hang", "").length() + "\r\n\r\n" + ErrorsTest.chat("fake-hang", ""), WAIT);
        assertThat(a.status()).isEqualTo(504);
    }
}
