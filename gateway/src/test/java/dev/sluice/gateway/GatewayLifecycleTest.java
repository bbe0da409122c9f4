package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Starting and stopping: the listener's port, a port already taken, and connections at stop. */
class GatewayLifecycleTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    private static SluiceConfig config(int port) {
        return ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: %d }
                deployments:
                  d: { kind: openai, base_url: "http://127.0.0.1:1" }
                profiles:
                  p: { deployment: d, model: m }
                """.formatted(port), "lifecycle.yaml", name -> null);
    }

    @Test
    void portZeroListensOnAFreePort() throws Exception {
        Gateway g = await(Gateway.builder(config(0)).vertx(vertx).instances(2).start());
        int port = g.port();
        assertThat(port).isPositive();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            assertThat(s.isConnected()).isTrue();
        }
        // That the port is free again is not asserted: another test's listener may take it at once.
        await(g.stop());
    }

    @Test
    void aPortAlreadyTakenFailsTheStart() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Future<Gateway> started = Gateway.builder(config(taken.getLocalPort())).vertx(vertx).start();
            assertThatThrownBy(() -> await(started)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(BindException.class);
        }
    }

    @Test
    void stopClosesIdleClientConnections() throws Exception {
        Gateway g = await(Gateway.builder(config(0)).vertx(vertx).start());
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), g.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n".getBytes());
            byte[] head = new byte[12];
            assertThat(s.getInputStream().readNBytes(head, 0, 12)).isEqualTo(12);
            assertThat(new String(head)).isEqualTo("HTTP/1.1 200");
            await(g.stop());
            s.getInputStream().readAllBytes(); // the rest of the answer, then the end of the stream
        }
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }
}
