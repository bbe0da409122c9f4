package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.store.BucketPlan;
import java.util.Optional;

/** A bucket shrunk to a fraction of itself: one replica's share of a shared limit. */
final class ScaledPlans {

    private ScaledPlans() {}

    /**
     * {@code plan} with every amount and capacity scaled by {@code fraction} and rounded down, so
     * shares never add up to more than the whole; empty when some dimension rounds to nothing.
     */
    static Optional<BucketPlan> scale(BucketPlan plan, double fraction) {
        Limits.Builder b = Limits.builder();
        for (int d : plan.limitedDimensions()) {
            Dimension dim = Dimension.byOrdinal(d);
            if (dim.kind() == Dimension.Kind.RATE) {
                long amount = (long) Math.floor(plan.amount(dim) * fraction);
                long burst = (long) Math.floor(plan.capacity(dim) * fraction);
                if (amount < 1 || burst < 1) {
                    return Optional.empty();
                }
                b.add(Limit.of(dim, amount, burst));
            } else {
                long amount = (long) Math.floor(plan.capacity(dim) * fraction);
                if (amount < 1) {
                    return Optional.empty();
                }
                b.add(Limit.of(dim, amount));
            }
        }
        return Optional.of(BucketPlan.of(plan.scope(), b.build()));
    }
}
