package dev.sluice.bench.load;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Loopback ports and child processes. */
final class Ports {

    private Ports() {}

    /** A port free on 127.0.0.1 a moment ago. */
    static int free() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Waits until something accepts connections on 127.0.0.1:{@code port}, or fails when {@code child} dies first. */
    static void awaitListening(int port, Duration timeout, Process child) throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException e) {
                if (!child.isAlive()) {
                    throw new IOException("the child process exited with status " + child.exitValue()
                            + " before listening on port " + port, e);
                }
                if (System.nanoTime() > end) {
                    throw new IOException("nothing listens on port " + port + " after " + timeout.toSeconds() + " s", e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Asks {@code p} to stop (SIGTERM), then kills it after 5 s; an interrupt kills it at once. */
    static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
