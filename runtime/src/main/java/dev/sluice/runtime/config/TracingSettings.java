package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * OpenTelemetry traces: a span per request and one per provider attempt, exported over OTLP.
 *
 * @param exporter where spans go: nowhere (the default), or an OTLP/HTTP collector
 * @param endpoint the collector's traces URL, for {@link Exporter#OTLP}
 * @param serviceName the {@code service.name} of the spans' resource
 */
public record TracingSettings(Exporter exporter, URI endpoint, String serviceName) {

    /** Where spans go. */
    public enum Exporter {
        NONE, OTLP;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The OpenTelemetry Collector's OTLP/HTTP default on this machine. */
    public static final URI DEFAULT_ENDPOINT = URI.create("http://127.0.0.1:4318/v1/traces");
    public static final String DEFAULT_SERVICE_NAME = "sluice";

    public TracingSettings {
        Objects.requireNonNull(exporter, "exporter");
        Objects.requireNonNull(endpoint, "endpoint");
        ConfigException.require("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()),
                "endpoint", "an http or https URL", "\"" + endpoint + "\"");
        Objects.requireNonNull(serviceName, "serviceName");
        ConfigException.require(!serviceName.isBlank(), "service_name", "a name", "\"\"");
    }

    /** Off: tracing costs nothing until asked for. */
    public static TracingSettings defaults() {
        return new TracingSettings(Exporter.NONE, DEFAULT_ENDPOINT, DEFAULT_SERVICE_NAME);
    }
}
