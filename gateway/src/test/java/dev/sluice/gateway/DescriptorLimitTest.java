package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Near the file-descriptor limit the gateway keeps accepting. A gateway process is started under
 * {@code ulimit -n 512}; its connection total is lowered to what the descriptors leave
 * ({@link ConnectionCaps#totalFor}: about 140 with the 130 a test JVM holds open, and a quarter of
 * that more held for their 503).
 */
class DescriptorLimitTest {

    private static final int SILENT = 600;

    private static final String CONFIG = """
            server: { host: 127.0.0.1, port: 0, header_timeout: 2s, max_connections_per_address: 100000 }
            ledger: { kind: off }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            """;

    /**
     * 600 connections that never send a byte: it counts up to its total and closes them after
     * {@code header_timeout}, holds a quarter more for a second, closes the rest as soon as it
     * accepts them, never runs out of descriptors (its log never says so), and serves afterwards.
     * (Before the acceptor counted, it ran out, and its listener stopped accepting for good.)
     */
    @Test
    void aFloodOfSilentConnectionsBeyondTheDescriptorLimitIsClosedAndTheGatewayServesAgain(@TempDir Path dir)
            throws Exception {
        try (Child gateway = Child.start(dir)) {
            List<Socket> silent = new ArrayList<>();
            try {
                for (int i = 0; i < SILENT; i++) {
                    silent.add(new Socket("127.0.0.1", gateway.port));
                }
                assertThat(closedByGateway(silent, 30)).as("every silent connection closed by the gateway")
                        .isEqualTo(SILENT);
            } finally {
                for (Socket s : silent) {
                    s.close();
                }
            }
            assertThat(gateway.process.isAlive()).isTrue();
            assertThat(health(gateway.port)).as("serving again").isEqualTo(200);
            assertThat(gateway.log()).as("it never ran out of descriptors").doesNotContain("Too many open files");
        }
    }

    /**
     * When something else takes every descriptor, accepting fails ({@code EMFILE}) and the listener
     * pauses; once descriptors are free again it accepts again: the connections that waited are
     * handled (closed after their header timeout) and a new one is served. (Its first warning used to
     * load the time-zone rules from a file, which failed for want of a descriptor and ended the
     * acceptor's thread: see {@link AcceptLimit}.)
     */
    @Test
    void aListenerThatRanOutOfDescriptorsAcceptsAgainOnceTheyAreFree(@TempDir Path dir) throws Exception {
        try (Child gateway = Child.start(dir)) {
            gateway.command("hog");
            assertThat(gateway.awaitLine(10, "hogged ")).as("the descriptors taken").isTrue();
            List<Socket> waiting = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    waiting.add(new Socket("127.0.0.1", gateway.port)); // completed by the kernel, queued for accept
                }
                // Netty's warning, or (when that warning itself fails) the acceptor thread's last words.
                assertThat(gateway.awaitLine(10, "Too many open files", "acceptor")).as("accepting failed").isTrue();
                gateway.command("free");
                assertThat(gateway.awaitLine(10, "freed")).isTrue();
                assertThat(closedByGateway(waiting, 20)).as("the queued connections accepted, then timed out")
                        .isEqualTo(waiting.size());
            } finally {
                for (Socket s : waiting) {
                    s.close();
                }
            }
            assertThat(health(gateway.port)).as("serving again").isEqualTo(200);
        }
    }

    /** How many of {@code sockets} the gateway closed (end of stream or reset) within {@code seconds}. */
    private static int closedByGateway(List<Socket> sockets, int seconds) throws IOException {
        int closed = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (Socket s : sockets) {
            s.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
            try {
                if (s.getInputStream().read() < 0) {
                    closed++;
                }
            } catch (SocketTimeoutException e) {
                // still open: not closed
            } catch (IOException e) {
                closed++; // reset: closed too
            }
        }
        return closed;
    }

    private static int health(int port) throws IOException {
        return RawClient.exchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 10_000)
                .status();
    }

    /** The gateway process ({@link FdLimitedGateway}) under {@code ulimit -n 512}, and what it printed. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final int port;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final StringBuffer log = new StringBuffer();

        private Child(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static Child start(Path dir) throws IOException {
            Path config = dir.resolve("fd.yaml");
            Files.writeString(config, CONFIG);
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder("sh", "-c", "ulimit -n 512 && exec \"$0\" -Xmx256m -cp \"$1\" "
                    + FdLimitedGateway.class.getName() + " \"$2\"", java, System.getProperty("java.class.path"),
                    config.toString()).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            int port = -1;
            while (port < 0 && (line = out.readLine()) != null) {
                if (line.startsWith("port ")) {
                    port = Integer.parseInt(line.substring(5).trim());
                }
            }
            assertThat(port).as("the gateway started").isPositive();
            Child c = new Child(p, port);
            Thread.ofPlatform().daemon().start(() -> out.lines().forEach(l -> {
                c.log.append(l).append('\n');
                c.lines.add(l);
            }));
            return c;
        }

        void command(String line) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        /** Whether a line containing one of {@code texts} is printed within {@code seconds}. */
        boolean awaitLine(int seconds, String... texts) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                String l = lines.poll(left, TimeUnit.NANOSECONDS);
                for (String text : texts) {
                    if (l != null && l.contains(text)) {
                        return true;
                    }
                }
            }
            return false;
        }

        String log() {
            return log.toString();
        }

        @Override
        public void close() throws IOException {
            process.getOutputStream().close();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
