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
 */
public record AdminSettings(String host, int port, long maxBodyBytes, Map<String, AdminToken> tokens) {

    /** Loopback only: the operations plane is not reachable from the network until asked. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Beside the client listener's 8080. */
    public static final int DEFAULT_PORT = 8081;
    /** 64 KiB: an admin body is a handful of fields, never a prompt. */
    public static final long DEFAULT_MAX_BODY_BYTES = 64 * 1024;

    public AdminSettings {
        Objects.requireNonNull(host, "host");
        ConfigException.require(port >= 0 && port <= 65535, "admin.port", "0..65535", port);
        ConfigException.require(maxBodyBytes > 0, "admin.max_body_bytes", "> 0", maxBodyBytes);
        tokens = Collections.unmodifiableMap(new LinkedHashMap<>(tokens));
    }

    /** A copy listening on {@code newPort}. */
    public AdminSettings withPort(int newPort) {
        return new AdminSettings(host, newPort, maxBodyBytes, tokens);
    }
}
