package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the gateway listens and how much it accepts from a client.
 *
 * @param host interface to bind
 * @param port TCP port; 0 picks a free one
 * @param maxBodyBytes largest request body accepted (413 beyond)
 * @param maxHeaderBytes largest request header block accepted (431 beyond)
 * @param upstreamTimeout longest wait for a provider's response headers, and for each body chunk (504 beyond)
 */
public record ServerSettings(String host, int port, long maxBodyBytes, int maxHeaderBytes, Duration upstreamTimeout) {

    /** Loopback only, so a fresh install is not reachable from the network until asked. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    /** 4 MiB: a long multi-turn prompt with a few inline images fits; a runaway upload does not. */
    public static final long DEFAULT_MAX_BODY_BYTES = 4L * 1024 * 1024;
    /** 16 KiB: well above what SDKs send, small enough to refuse header floods early. */
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    /** Two minutes, the longest a non-streaming completion usually takes before its first byte. */
    public static final Duration DEFAULT_UPSTREAM_TIMEOUT = Duration.ofSeconds(120);

    public ServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(upstreamTimeout, "upstreamTimeout");
        ConfigException.require(port >= 0 && port <= 65535, "port", "0..65535", port);
        ConfigException.require(maxBodyBytes > 0, "max_body_bytes", "> 0", maxBodyBytes);
        ConfigException.require(maxHeaderBytes >= 1024, "max_header_bytes", ">= 1024", maxHeaderBytes);
        ConfigException.require(upstreamTimeout.isPositive(), "upstream_timeout", "> 0", upstreamTimeout);
    }

    public static ServerSettings defaults() {
        return new ServerSettings(DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HEADER_BYTES,
                DEFAULT_UPSTREAM_TIMEOUT);
    }

    /** A copy listening on {@code newPort}. */
    public ServerSettings withPort(int newPort) {
        return new ServerSettings(host, newPort, maxBodyBytes, maxHeaderBytes, upstreamTimeout);
    }
}
