package dev.sluice.governor;

import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A governor on a manual clock with an in-memory store, and shorthand for requests on a standard tree.
 * Its governor is checked by {@link GovernorInvariants} when the test ends.
 */
final class GovernorFixture {

    final FakeClock clock = new FakeClock();
    final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    final QuotaGovernor governor;
    private final AtomicLong ids = new AtomicLong();

    GovernorFixture(GovernorConfig config) {
        this.governor = GovernorInvariants.track(new QuotaGovernor(config, store, clock));
    }

    static Scope org() {
        return Scope.of(ScopeLevel.ORGANISATION, "org");
    }

    static Scope tenant(String t) {
        return Scope.of(ScopeLevel.TENANT, t);
    }

    static Scope key(String k) {
        return Scope.of(ScopeLevel.API_KEY, k);
    }

    static Scope deployment() {
        return Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep");
    }

    static RequestPath path(String tenant) {
        return new RequestPath("org", tenant, tenant + "-team", tenant + "-key", "chat", "dep");
    }

    AdmissionRequest request(String tenant, long in, long out, TrafficClass c) {
        return new AdmissionRequest("r" + ids.incrementAndGet(), path(tenant), new Demand(in, out, false), c,
                AdmissionRequest.NO_DEADLINE);
    }

    AdmissionRequest request(String tenant, long in, long out) {
        return request(tenant, in, out, TrafficClass.BATCH);
    }

    /** A request of {@code in} and {@code out} tokens priced at {@code costMicros} micro-dollars. */
    Decision admitCosting(String tenant, long in, long out, long costMicros) {
        return governor.admit(new AdmissionRequest("r" + ids.incrementAndGet(), path(tenant),
                new Demand(in, out, false, 0, costMicros), TrafficClass.BATCH, AdmissionRequest.NO_DEADLINE));
    }

    Decision admit(String tenant, long in, long out) {
        return governor.admit(request(tenant, in, out));
    }

    BucketState.DimensionState state(Scope scope, dev.sluice.limits.Dimension d) {
        return governor.bucket(scope).orElseThrow().of(d).orElseThrow();
    }

    static GovernorConfig.Builder config() {
        return GovernorConfig.builder();
    }

    /**
     * Limits whose rates hold a whole minute at once (burst = amount): a provider deployment
     * without a short window, for rules that are not about windows.
     */
    static Limits minute(Object... pairs) {
        Limits.Builder b = Limits.builder();
        for (int i = 0; i < pairs.length; i += 2) {
            long amount = ((Number) pairs[i + 1]).longValue();
            b.add(dev.sluice.limits.Limit.of((dev.sluice.limits.Dimension) pairs[i], amount, amount));
        }
        return b.build();
    }

    static Limits limits(Object... pairs) {
        Limits.Builder b = Limits.builder();
        for (int i = 0; i < pairs.length; i += 2) {
            b.add((dev.sluice.limits.Dimension) pairs[i], ((Number) pairs[i + 1]).longValue());
        }
        return b.build();
    }
}
