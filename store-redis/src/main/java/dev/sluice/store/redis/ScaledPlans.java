package dev.sluice.store.redis;

import dev.sluice.store.BucketPlan;
import java.util.Optional;

/** A bucket shrunk to a fraction of itself: one replica's share of a shared limit. */
final class ScaledPlans {

    private ScaledPlans() {}

    /** {@code plan} shrunk to {@code fraction} of itself ({@link BucketPlan#scaled}). */
    static Optional<BucketPlan> scale(BucketPlan plan, double fraction) {
        return plan.scaled(fraction);
    }
}
