package dev.sluice.store;

import dev.sluice.limits.Dimension;
import java.util.List;

/**
 * What one bucket holds right now, for snapshots, dashboards and the invariant checks of tests.
 *
 * @param key the bucket key
 * @param dimensions one entry per limited dimension
 */
public record BucketState(String key, List<DimensionState> dimensions) {

    public BucketState {
        dimensions = List.copyOf(dimensions);
    }

    /** The entry for {@code d}, if limited. */
    public java.util.Optional<DimensionState> of(Dimension d) {
        return dimensions.stream().filter(s -> s.dimension() == d).findFirst();
    }

    /**
     * One dimension of a bucket. Conservation holds at all times:
     * {@code reserved == settled + refunded + expired + open}.
     *
     * @param dimension which
     * @param available for a rate, tokens available now (negative is debt); for a gauge,
     *     slots free; for a daily cap, what is left today
     * @param capacity the most it holds
     * @param rateFactor the adaptive factor applied to refill (1 when not adapted)
     * @param pausedForNanos how long refill and admission stay paused (cooldown), 0 if not
     * @param reserved total ever reserved
     * @param settled part of reservations confirmed by actual usage
     * @param refunded part given back because actual usage was lower, or the request never went
     * @param expired part held by leases that expired unsettled
     * @param open part held by leases still open
     * @param overage actual usage above the reservation, charged as debt
     */
    public record DimensionState(Dimension dimension, double available, long capacity, double rateFactor,
            long pausedForNanos, long reserved, long settled, long refunded, long expired, long open,
            long overage) {

        /** reserved == settled + refunded + expired + open. */
        public boolean conserved() {
            return reserved == settled + refunded + expired + open;
        }
    }
}
