package dev.sluice.store;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;

/** What a store answers to an all-or-nothing reservation. */
public sealed interface ReserveOutcome {

    /** Every bucket on the path had room; all of them now hold the amounts under one lease. */
    record Granted(LeaseHandle lease) implements ReserveOutcome {}

    /**
     * Some bucket had no room; nothing was taken anywhere. Names the bucket and dimension that
     * binds longest.
     *
     * @param pathIndex index of the binding bucket in the path given to the store
     * @param scope the binding bucket's scope
     * @param dimension the binding dimension
     * @param waitNanos time until the request would fit, from refill arithmetic (and any pause);
     *     {@link #UNKNOWN_WAIT} for concurrency, where it depends on others finishing
     * @param neverFits the request is larger than the bucket can ever hold: waiting cannot help
     * @param dailyCap the binding dimension is a calendar cap (daily or monthly), spent until
     *     {@code waitNanos} from now (the name is older than monthly caps)
     * @param available what the bucket had when asked
     * @param needed what the request asked for
     * @param capacity the most the bucket can ever hold on this dimension
     * @param heldBack how much of the binding dimension was out of reach because it is held back
     *     as {@link Headroom} for higher classes; 0 when headroom played no part
     */
    record Short(int pathIndex, Scope scope, Dimension dimension, long waitNanos, boolean neverFits,
            boolean dailyCap, long available, long needed, long capacity, long heldBack) implements ReserveOutcome {

        /** A shortfall in which no headroom played a part. */
        public Short(int pathIndex, Scope scope, Dimension dimension, long waitNanos, boolean neverFits,
                boolean dailyCap, long available, long needed, long capacity) {
            this(pathIndex, scope, dimension, waitNanos, neverFits, dailyCap, available, needed, capacity, 0);
        }

        /** The wait cannot be computed from refill arithmetic. */
        public static final long UNKNOWN_WAIT = -1;

        public boolean waitKnown() {
            return waitNanos >= 0;
        }

        /** Whether the request would have fitted but for the headroom held back for higher classes. */
        public boolean headroomBound() {
            return heldBack > 0;
        }
    }
}
