package dev.sluice.store;

/**
 * What the class reserve means for one reservation on some buckets of its path: capacity it must
 * leave untouched (it is of a class that others outrank), or debt it may run ahead of the refill
 * (it is of a class a reserve is held for, while work of a lower class shares the bucket).
 *
 * <p>Held back: a reservation that would dip into the headroom is short, with a wait until the
 * bucket holds the request and the headroom. On a rate, the floor is {@code fraction} of the
 * bucket's adapted capacity (capacity times its rate factor), and a request never needs more than a
 * full bucket: one larger than the capacity less the floor goes when the bucket is full. On a gauge
 * (concurrency, streams), at most the capacity less {@code fraction} of it may be in flight after
 * the request, but a request always fits an empty gauge. Daily caps keep no headroom: a day is not
 * a queue.
 *
 * <p>Lent: on a rate shaped by a short provider window (a bucket holding the window's allowance,
 * with the minute as its ceiling), held-back capacity cannot protect a request larger than the
 * window, which waits for a full bucket like everyone's, and a lower class's large request leaves
 * the bucket in debt for seconds. So the reserve is sized on the minute instead and lent: the
 * reservation goes while the bucket's level is at most {@code credit} of the minute beyond the
 * window ({@code credit x (ceiling - capacity) x factor}) short of what it would otherwise need, and
 * the debt it leaves is paid back by the lower classes, which still wait for a full bucket. A bucket
 * of a minute's worth has nothing beyond its window and lends nothing; a pause is never lent
 * through.
 *
 * @param fraction of each named bucket's capacity held back, in [0, 1)
 * @param buckets bit {@code i} set: the headroom applies to bucket {@code i} of the path
 * @param credit of each named bucket's minute beyond its window the reservation may run ahead of
 *     the refill, in [0, 1); 0 whenever {@code fraction} is not
 */
public record Headroom(double fraction, int buckets, double credit) {

    /** Nothing held back, nothing lent: the bucket's own rules alone. */
    public static final Headroom NONE = new Headroom(0, 0, 0);

    public Headroom {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("fraction: " + fraction + " (expected: in [0, 1))");
        }
        if (!(credit >= 0 && credit < 1)) {
            throw new IllegalArgumentException("credit: " + credit + " (expected: in [0, 1))");
        }
        if (fraction > 0 && credit > 0) {
            throw new IllegalArgumentException("fraction " + fraction + " and credit " + credit
                    + " (expected: a reservation either leaves headroom or borrows it)");
        }
        if (fraction == 0 && credit == 0) {
            buckets = 0;
        }
    }

    /** {@code fraction} held back on the buckets in {@code buckets}. */
    public Headroom(double fraction, int buckets) {
        this(fraction, buckets, 0);
    }

    /** {@code credit} of the minute beyond the window lent on the buckets in {@code buckets}. */
    public static Headroom lent(double credit, int buckets) {
        return new Headroom(0, buckets, credit);
    }

    /** Whether bucket {@code index} of the path keeps this headroom. */
    public boolean appliesTo(int index) {
        return (buckets & (1 << index)) != 0;
    }

    /** Whether anything is held back or lent at all. */
    public boolean any() {
        return buckets != 0;
    }

    /** Whether bucket {@code index} must keep {@link #fraction} untaken. */
    public boolean holdsBackOn(int index) {
        return fraction > 0 && appliesTo(index);
    }

    /** What bucket {@code index} lends: {@link #credit} there, else 0. */
    public double creditOn(int index) {
        return appliesTo(index) ? credit : 0;
    }
}
