package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A kept-alive client connection is closed by the gateway after {@code server.idle_timeout}
 * (here 2.5 s); a request a client sends on it as, or after, it closes was never read and ends at
 * the client with no status (the soak's 95 connection errors). So every answer on a kept-alive
 * connection advertises a shorter timeout ({@code Keep-Alive: timeout=1} here) and a client that
 * honours it retires the connection first.
 */
class KeepAliveTimeoutTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true, ", idle_timeout: 2500ms");

    static final String HEALTH = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

    @Test
    void theAdvertisedTimeoutIsWholeSecondsAMarginBelowTheIdleTimeout() {
        assertThat(ClientConnections.advertisedIdleSeconds(Duration.ofSeconds(60))).hasValue(54);
        assertThat(ClientConnections.advertisedIdleSeconds(Duration.ofSeconds(10))).hasValue(9);
        assertThat(ClientConnections.advertisedIdleSeconds(Duration.ofMillis(2_500))).hasValue(1);
        assertThat(ClientConnections.advertisedIdleSeconds(Duration.ofMillis(1_999)))
                .as("timeout=0 would read as no timeout to some clients").isEqualTo(OptionalLong.empty());
        assertThat(ClientConnections.advertisedIdleSeconds(Duration.ofMillis(300))).isEmpty();
    }

    @Test
    void anAnswerOnAKeptAliveConnectionAdvertisesTheShorterTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.getOutputStream().write(HEALTH.getBytes(StandardCharsets.US_ASCII));
            RawClient.Answer a = RawClient.read(s, 500);
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.text().toLowerCase()).contains("\r\nkeep-alive: timeout=1\r\n");
        }
    }

    @Test
    void anAnswerThatClosesItsConnectionAdvertisesNoTimeout() throws Exception {
        RawClient.Answer a = RawClient.exchange(f.gateway.port(),
                "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5_000);
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.closed()).isTrue();
        assertThat(a.text().toLowerCase()).doesNotContain("keep-alive:");
    }

    @Test
    void aRequestSentOnAConnectionTheGatewayClosedForIdlenessEndsWithNoStatus() throws Exception {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.getOutputStream().write(HEALTH.getBytes(StandardCharsets.US_ASCII));
            assertThat(RawClient.read(s, 500).status()).isEqualTo(200);
            // The gateway closes the idle connection; a client that has not yet read that close sends on it.
            RawClient.Answer idle = RawClient.read(s, 5_000);
            assertThat(idle.closed()).isTrue();
            try {
                s.getOutputStream().write(HEALTH.getBytes(StandardCharsets.US_ASCII));
            } catch (IOException reset) {
                // as likely: the send itself fails
            }
            RawClient.Answer late = RawClient.read(s, 2_000);
            assertThat(late.closed()).isTrue();
            assertThat(late.status()).as("never read, never answered").isEqualTo(-1);
        }
    }

    @Test
    void aClientThatHonoursTheAdvertisedTimeoutRetiresTheConnectionBeforeTheGatewayCloses() throws Exception {
        // Vert.x's own keep-alive timeout (60 s) is far longer than the gateway's 2.5 s: only the header retires it.
        // Its pool drops expired connections at each cleaner pass (every second by default; 100 ms here).
        HttpClient client = f.vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true)
                .setDefaultHost("127.0.0.1").setDefaultPort(f.gateway.port()), new PoolOptions().setCleanerPeriod(100));
        try {
            HttpConnection first = await(get(client));
            await(f.vertx.timer(1_600, TimeUnit.MILLISECONDS)); // past the advertised 1 s, before the gateway's 2.5 s
            HttpConnection second = await(get(client));
            assertThat(second).as("a new connection: the client retired the first").isNotSameAs(first);
        } finally {
            await(client.close());
        }
    }

    /** GET /healthz, answered 200; the connection it went on. */
    private static Future<HttpConnection> get(HttpClient client) {
        return client.request(HttpMethod.GET, "/healthz").compose(req -> req.send().compose(resp -> {
            assertThat(resp.statusCode()).isEqualTo(200);
            return resp.body().map(b -> req.connection());
        }));
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
