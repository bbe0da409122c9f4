package dev.sluice.store;

/**
 * Capacity a reservation must leave untouched on some buckets of its path: the part of a shared
 * bucket held back for classes of work that outrank the requester's. A reservation that would dip
 * into it is short, with a wait until the bucket holds the request and the headroom. Headroom is
 * only ever a floor for the one reservation that names it; a request that may use the headroom
 * (a higher class) names less or none, and takes it.
 *
 * <p>On a rate, the floor is {@code fraction} of the bucket's adapted capacity (capacity times
 * its rate factor), and a request never needs more than a full bucket: one larger than the
 * capacity less the floor goes when the bucket is full. On a gauge (concurrency, streams), at
 * most the capacity less {@code fraction} of it may be in flight after the request, but a request
 * always fits an empty gauge. Daily caps keep no headroom: a day is not a queue.
 *
 * @param fraction of each named bucket's capacity held back, in [0, 1)
 * @param buckets bit {@code i} set: the floor applies to bucket {@code i} of the path
 */
public record Headroom(double fraction, int buckets) {

    /** Nothing held back: the whole bucket may be taken. */
    public static final Headroom NONE = new Headroom(0, 0);

    public Headroom {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("fraction: " + fraction + " (expected: in [0, 1))");
        }
        if (fraction == 0) {
            buckets = 0;
        }
    }

    /** Whether bucket {@code index} of the path keeps this headroom. */
    public boolean appliesTo(int index) {
        return (buckets & (1 << index)) != 0;
    }

    /** Whether anything is held back at all. */
    public boolean any() {
        return buckets != 0;
    }
}
