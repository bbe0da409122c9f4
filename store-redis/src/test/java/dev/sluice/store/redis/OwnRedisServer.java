package dev.sluice.store.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of the test's own on a free loopback port, without persistence, that the test
 * can kill and start again; the machine's Redis is left alone. Readiness is read from the
 * server's log, not waited for. Public for the benchmark, which can run on a server of its own.
 */
public final class OwnRedisServer implements AutoCloseable {

    final int port;
    private Process process;

    public OwnRedisServer() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            this.port = s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public void start() throws Exception {
        Process p = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no").redirectErrorStream(true).start();
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.contains("Ready to accept connections")) {
                        ready.complete(true);
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.complete(false);
        }, "redis-server-log-" + port);
        reader.setDaemon(true);
        reader.start();
        if (!ready.get(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " exited before it was ready");
        }
        process = p;
    }

    /**
     * Stops the server (SIGSTOP) without closing its sockets, as a stalled host or a long pause
     * would: connections stay open and calls get no answer until {@link #resume}.
     */
    public void pause() throws Exception {
        signal("-STOP");
    }

    /** Lets a {@link #pause paused} server run again (SIGCONT); it then answers what it was sent meanwhile. */
    public void resume() throws Exception {
        signal("-CONT");
    }

    private void signal(String which) throws Exception {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + which + " " + process.pid() + " failed");
        }
    }

    /** Kills the server as a crash would (SIGKILL) and waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            kill();
        }
    }
}
