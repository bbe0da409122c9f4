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
     * @param dailyCap the binding dimension is a daily cap, spent until {@code waitNanos} from now
     * @param available what the bucket had when asked
     * @param needed what the request asked for
     * @param capacity the most the bucket can ever hold on this dimension
     */
    record Short(int pathIndex, Scope scope, Dimension dimension, long waitNanos, boolean neverFits,
            boolean dailyCap, long available, long needed, long capacity) implements ReserveOutcome {

        /** The wait cannot be computed from refill arithmetic. */
        public static final long UNKNOWN_WAIT = -1;

        public boolean waitKnown() {
            return waitNanos >= 0;
        }
    }
}
