package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What should hold (disabled: it does not yet). Near the file-descriptor limit the gateway keeps accepting: a gateway process started under
 * {@code ulimit -n 512} (its connection total lowered to 256 by it, 64 more held for their 503) is
 * sent 600 connections that never send a byte. It counts 256 and closes them after
 * {@code header_timeout}, holds 64 for a second, closes the rest as soon as it accepts them, and
 * never runs out of descriptors, so it serves again afterwards. (Run out, its listener was seen to
 * stop accepting for good, every connection left in the accept queue.)
 */
class DescriptorLimitTest {

    private static final int SILENT = 600;

    @Test
    @org.junit.jupiter.api.Disabled("issue 17 item 1, open: 384 of 600 were closed; the acceptor takes the process to its "
            + "descriptor limit faster than the connections beyond the caps are closed, and Netty's listener does not "
            + "accept again afterwards (the rest stay in the accept queue)")
    void aFloodOfSilentConnectionsBeyondTheDescriptorLimitIsClosedAndTheGatewayServesAgain(@TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("fd.yaml");
        Files.writeString(config, """
                server: { host: 127.0.0.1, port: 0, header_timeout: 2s, max_connections_per_address: 100000 }
                ledger: { kind: off }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process gateway = new ProcessBuilder("sh", "-c", "ulimit -n 512 && exec \"$0\" -Xmx256m -cp \"$1\" "
                + FdLimitedGateway.class.getName() + " \"$2\"", java, System.getProperty("java.class.path"),
                config.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(gateway.getInputStream(), StandardCharsets.UTF_8));
            String line;
            int port = -1;
            while (port < 0 && (line = out.readLine()) != null) {
                if (line.startsWith("port ")) {
                    port = Integer.parseInt(line.substring(5).trim());
                }
            }
            assertThat(port).as("the gateway started").isPositive();
            Thread.ofPlatform().daemon().start(() -> out.lines().forEach(l -> { })); // its log, drained

            List<Socket> silent = new ArrayList<>();
            try {
                for (int i = 0; i < SILENT; i++) {
                    silent.add(new Socket("127.0.0.1", port));
                }
                int closedByGateway = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                for (Socket s : silent) {
                    s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
                    try {
                        if (s.getInputStream().read() < 0) {
                            closedByGateway++;
                        }
                    } catch (SocketTimeoutException e) {
                        // still open 30 s after the flood: not closed
                    } catch (java.io.IOException e) {
                        closedByGateway++; // reset: closed too
                    }
                }
                assertThat(closedByGateway).as("every silent connection closed by the gateway").isEqualTo(SILENT);
            } finally {
                for (Socket s : silent) {
                    s.close();
                }
            }

            assertThat(gateway.isAlive()).isTrue();
            RawClient.Answer health = RawClient.exchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    10_000);
            assertThat(health.status()).as("serving again").isEqualTo(200);
        } finally {
            gateway.getOutputStream().close();
            if (!gateway.waitFor(20, TimeUnit.SECONDS)) {
                gateway.destroyForcibly();
            }
        }
    }
}
