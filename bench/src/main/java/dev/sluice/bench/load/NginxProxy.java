package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * nginx as a plain reverse proxy in front of the fake upstream: the baseline Sluice is compared
 * with. Runs as a child process in the foreground with its configuration, pid, logs and temporary
 * files in a directory of its own, listens on a free 127.0.0.1 port, keeps connections to the
 * upstream alive, keeps request bodies up to 1 MiB in memory rather than in temporary files, and
 * does not buffer streams.
 */
public final class NginxProxy implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private final int port;
    private final String version;

    private NginxProxy(Process process, Path dir, int port, String version) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.version = version;
    }

    /** The nginx executable on the PATH or in /usr/sbin, if there is one. */
    public static Optional<Path> find() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (!d.isEmpty()) {
                    candidates.add(Path.of(d, "nginx"));
                }
            }
        }
        candidates.add(Path.of("/usr/sbin/nginx"));
        candidates.add(Path.of("/usr/local/nginx/sbin/nginx"));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** Starts {@code binary} with {@code workers} worker processes in front of 127.0.0.1:{@code upstreamPort}. */
    public static NginxProxy start(Path binary, int upstreamPort, int workers) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("sluice-bench-nginx");
        int port = Ports.free();
        Path conf = dir.resolve("nginx.conf");
        Files.writeString(conf, config(dir, port, upstreamPort, workers, "root".equals(System.getProperty("user.name"))),
                StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(binary.toString(), "-p", dir.toString(), "-c", conf.toString(), "-e",
                dir.resolve("error.log").toString(), "-g", "daemon off;")
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        try {
            Ports.awaitListening(port, Duration.ofSeconds(10), p);
        } catch (IOException e) {
            p.destroyForcibly();
            throw new IOException(e.getMessage() + "; see " + dir.resolve("error.log"), e);
        }
        return new NginxProxy(p, dir, port, version(binary));
    }

    /** The configuration: a free-standing http block with one keep-alive upstream. */
    static String config(Path dir, int port, int upstreamPort, int workers, boolean asRoot) {
        String d = dir.toAbsolutePath().toString();
        // Run as root, nginx would switch its workers to 'nobody', who cannot write the private temp directories.
        return (asRoot ? "user root;\n" : "") + """
                worker_processes %d;
                pid %s/nginx.pid;
                error_log %s/error.log warn;
                events { worker_connections 4096; }
                http {
                  access_log off;
                  client_body_buffer_size 1m;
                  client_body_temp_path %s/client_body;
                  proxy_temp_path %s/proxy;
                  fastcgi_temp_path %s/fastcgi;
                  uwsgi_temp_path %s/uwsgi;
                  scgi_temp_path %s/scgi;
                  keepalive_requests 1000000;
                  keepalive_timeout 120s;
                  upstream fake {
                    server 127.0.0.1:%d;
                    keepalive 1024;
                    keepalive_requests 1000000;
                  }
                  server {
                    listen 127.0.0.1:%d;
                    location / {
                      proxy_pass http://fake;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_buffering off;
                    }
                  }
                }
                """.formatted(workers, d, d, d, d, d, d, d, upstreamPort, port);
    }

    private static String version(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "-v").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor(5, TimeUnit.SECONDS);
        return out.replace("nginx version: ", "");
    }

    public int port() {
        return port;
    }

    /** What {@code nginx -v} says, e.g. "nginx/1.24.0 (Ubuntu)". */
    public String version() {
        return version;
    }

    /** CPU time of the master and its workers. */
    CpuMeter cpu() {
        return CpuMeter.of(process.toHandle());
    }

    /** The directory holding its configuration and logs. */
    public Path directory() {
        return dir;
    }

    /** Stops nginx (TERM, then KILL after 5 s). */
    @Override
    public void close() {
        Ports.stop(process);
    }
}
