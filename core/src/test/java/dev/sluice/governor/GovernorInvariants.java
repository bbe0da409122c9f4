package dev.sluice.governor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Checks the governor's structure after every test, as Caffeine validates its cache after each
 * of its tests: whatever a test did, no bucket holds more than it may and every lease is ended
 * or live. Governors made by {@link GovernorFixture} are tracked by themselves; a test that builds
 * one by hand calls {@link #track}. A jqwik property, which JUnit extensions do not reach, calls
 * {@link #verify} at the end of each try.
 *
 * <ul>
 *   <li>every dimension of every bucket is conserved: reserved = settled + refunded + expired + open;
 *   <li>a rate never has more available than its adapted capacity (debt below zero is allowed);
 *   <li>a gauge holds between nothing and its capacity;
 *   <li>the store's open leases are never negative.
 * </ul>
 */
public final class GovernorInvariants implements BeforeEachCallback, AfterEachCallback {

    private static final ThreadLocal<List<QuotaGovernor>> TRACKED = ThreadLocal.withInitial(ArrayList::new);

    /** Checks {@code governor} when the running test ends. */
    public static QuotaGovernor track(QuotaGovernor governor) {
        TRACKED.get().add(governor);
        return governor;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        TRACKED.get().clear();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<QuotaGovernor> governors = List.copyOf(TRACKED.get());
        TRACKED.get().clear();
        if (context.getExecutionException().isEmpty()) {
            governors.forEach(GovernorInvariants::verify);
        }
    }

    /** Fails with the bucket and dimension that breaks an invariant. */
    public static void verify(QuotaGovernor governor) {
        assertThat(governor.store().openLeases()).as("open leases").isNotNegative();
        for (BucketState bucket : governor.snapshot().buckets()) {
            for (BucketState.DimensionState d : bucket.dimensions()) {
                String where = bucket.key() + " " + d.dimension();
                assertThat(d.conserved()).as("%s conserved: %s", where, d).isTrue();
                if (d.dimension().kind() == Dimension.Kind.RATE) {
                    assertThat(d.available()).as("%s available within its adapted capacity", where)
                            .isLessThanOrEqualTo(d.capacity() * d.rateFactor() + 1e-6);
                } else if (d.dimension().kind() == Dimension.Kind.GAUGE) {
                    assertThat(d.available()).as("%s held within capacity", where)
                            .isBetween(0.0, (double) d.capacity());
                }
            }
        }
    }
}
