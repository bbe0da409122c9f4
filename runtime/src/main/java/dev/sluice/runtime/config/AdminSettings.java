package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The admin listener: the admin and partner API, {@code /metrics} and the dashboard, on a port of
 * its own, never the client port. It runs when the configuration has an {@code admin:} section.
 *
 * @param host interface to bind; loopback unless asked
 * @param port TCP port; 0 picks a free one
 * @param maxBodyBytes largest admin request body accepted (413 beyond)
 * @param tokens the admin tokens by id, in file order
 * @param maxRequestsPerMinute requests each token (and each address presenting no valid token) may
 *     make per minute, a tenth of them at once; 429 beyond
 */
public record AdminSettings(String host, int port, long maxBodyBytes, Map<String, AdminToken> tokens,
        int maxRequestsPerMinute) {

    /** Loopback only: the operations plane is not reachable from the network until asked. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Beside the client listener's 8080. */
    public static final int DEFAULT_PORT = 8081;
    /** 64 KiB: an admin body is a handful of fields, never a prompt. */
    public static final long DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /**
     * 600 a minute (10 a second, 60 at once): far above an operator's pace and a partner's sync job,
     * low enough that a runaway script or a token guesser cannot keep the listener's one loop busy.
     */
    public static final int DEFAULT_MAX_REQUESTS_PER_MINUTE = 600;

    public AdminSettings {
        Objects.requireNonNull(host, "host");
        ConfigException.require(port >= 0 && port <= 65535, "admin.port", "0..65535", port);
        ConfigException.require(maxBodyBytes > 0, "admin.max_body_bytes", "> 0", maxBodyBytes);
        tokens = Collections.unmodifiableMap(new LinkedHashMap<>(tokens));
        ConfigException.require(maxRequestsPerMinute > 0, "admin.max_requests_per_minute", "> 0", maxRequestsPerMinute);
    }

    /** With the default request rate. */
    public AdminSettings(String host, int port, long maxBodyBytes, Map<String, AdminToken> tokens) {
        this(host, port, maxBodyBytes, tokens, DEFAULT_MAX_REQUESTS_PER_MINUTE);
    }

    /** A copy listening on {@code newPort}. */
    public AdminSettings withPort(int newPort) {
        return new AdminSettings(host, newPort, maxBodyBytes, tokens, maxRequestsPerMinute);
    }
}
