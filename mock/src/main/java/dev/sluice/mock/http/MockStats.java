package dev.sluice.mock.http;

import dev.sluice.mock.limits.TenantStats;
import java.util.List;
import java.util.Map;

/**
 * What a {@link MockProviderServer} has seen since it started or was last reset.
 *
 * @param tenants limit-model statistics per tenant (admissions, rejections by kind, tokens)
 * @param attempts the most recent requests, oldest first (at most {@link #MAX_ATTEMPTS})
 * @param faults injected faults by name ({@code server_error}, {@code overloaded}, {@code reset},
 *     {@code reset_mid_stream}, {@code garbage}, {@code truncate}, {@code stream_error}, {@code spike})
 * @param totalRequests every request to a provider endpoint, including those no longer in {@code attempts}
 * @param inFlight admitted requests whose answer has not ended yet
 */
public record MockStats(
        Map<String, TenantStats> tenants,
        List<Attempt> attempts,
        Map<String, Long> faults,
        long totalRequests,
        int inFlight) {

    /** How many attempts are kept. */
    public static final int MAX_ATTEMPTS = 1_000;

    public MockStats {
        tenants = Map.copyOf(tenants);
        attempts = List.copyOf(attempts);
        faults = Map.copyOf(faults);
    }

    /** The attempts that reached one path. */
    public List<Attempt> attemptsTo(String path) {
        return attempts.stream().filter(a -> a.path().equals(path)).toList();
    }

    /** One tenant's statistics, empty when it sent nothing. */
    public TenantStats tenant(String tenant) {
        return tenants.getOrDefault(tenant, TenantStats.EMPTY);
    }

    /** How many times a fault was injected. */
    public long fault(String name) {
        return faults.getOrDefault(name, 0L);
    }
}
