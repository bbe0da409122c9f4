package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
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
 * @param metricsAuth what {@code GET /metrics} asks of a scraper
 */
public record AdminSettings(String host, int port, long maxBodyBytes, Map<String, AdminToken> tokens,
        int maxRequestsPerMinute, MetricsAuth metricsAuth) {

    /** What a Prometheus scrape of {@code /metrics} must present. */
    public enum MetricsAuth {
        /** Nothing: for a scraper that cannot send a token, on a listener only it can reach. */
        NONE,
        /** Any admin token ({@code read} is enough), as {@code Authorization: Bearer}: Prometheus's {@code authorization} block. */
        READ;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

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
    /**
     * A token: the metrics name every tenant, deployment and limit, which is as much as the read
     * API shows, and a listener bound beyond loopback should not hand that to anyone who asks.
     */
    public static final MetricsAuth DEFAULT_METRICS_AUTH = MetricsAuth.READ;

    public AdminSettings {
        Objects.requireNonNull(host, "host");
        ConfigException.require(port >= 0 && port <= 65535, "admin.port", "0..65535", port);
        ConfigException.require(maxBodyBytes > 0, "admin.max_body_bytes", "> 0", maxBodyBytes);
        tokens = Collections.unmodifiableMap(new LinkedHashMap<>(tokens));
        ConfigException.require(maxRequestsPerMinute > 0, "admin.max_requests_per_minute", "> 0", maxRequestsPerMinute);
        Objects.requireNonNull(metricsAuth, "metricsAuth");
    }

    /** With the default request rate and metrics access. */
    public AdminSettings(String host, int port, long maxBodyBytes, Map<String, AdminToken> tokens) {
        this(host, port, maxBodyBytes, tokens, DEFAULT_MAX_REQUESTS_PER_MINUTE, DEFAULT_METRICS_AUTH);
    }

    /** A copy with other tokens (a reloaded file's). */
    public AdminSettings withTokens(Map<String, AdminToken> next) {
        return new AdminSettings(host, port, maxBodyBytes, next, maxRequestsPerMinute, metricsAuth);
    }

    /** A copy listening on {@code newPort}. */
    public AdminSettings withPort(int newPort) {
        return new AdminSettings(host, newPort, maxBodyBytes, tokens, maxRequestsPerMinute, metricsAuth);
    }

    /** A copy whose {@code /metrics} asks {@code auth} of a scraper. */
    public AdminSettings withMetricsAuth(MetricsAuth auth) {
        return new AdminSettings(host, port, maxBodyBytes, tokens, maxRequestsPerMinute, auth);
    }
}
