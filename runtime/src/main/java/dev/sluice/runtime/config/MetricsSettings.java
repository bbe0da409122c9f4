package dev.sluice.runtime.config;

/**
 * The Prometheus metrics' optional labels. Every other label's values come from the configuration
 * (profiles, deployments, classes, dimensions) or from a short fixed list (decisions, results), so
 * a series count is bounded by the file, never by traffic; trace ids and key secrets are never labels.
 *
 * @param tenantLabel whether request and token counters carry {@code tenant} (a configured tenant
 *     id, or {@code none} for a request without a known key) and the tenant-level buckets and
 *     borrowed rates are shown
 * @param keyLabel whether they also carry {@code api_key}, the key's configured id (never its
 *     secret), and the key-level buckets are shown: one series per key and profile, so off unless asked
 */
public record MetricsSettings(boolean tenantLabel, boolean keyLabel) {

    /**
     * Tenant labels on: tenants are a short list in the file and "which tenants use the most" is
     * the dashboard's first question. Key labels off: a file may hold thousands of keys.
     */
    public static MetricsSettings defaults() {
        return new MetricsSettings(true, false);
    }
}
