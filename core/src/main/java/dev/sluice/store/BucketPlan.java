package dev.sluice.store;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The resolved, immutable shape of one bucket: its scope and, per dimension, the configured amount,
 * the capacity, the ceiling (the largest request it can ever take) and the refill rate. A rate
 * shaped by a short provider window ({@link Limit#windowAt}) holds the window's allowance and has
 * the minute's amount as its ceiling: a request between the two waits for a full bucket. Built once per configuration; the state (levels, debts,
 * leases) lives in a {@link QuotaStore} under {@link #key()} and survives a reload.
 */
public final class BucketPlan {

    private final Scope scope;
    private final String key;
    private final long[] amount = new long[Dimension.COUNT];
    private final long[] capacity = new long[Dimension.COUNT];
    private final long[] ceiling = new long[Dimension.COUNT];
    private final double[] refillPerNano = new double[Dimension.COUNT];
    private final int[] dimensions;
    private final boolean hasDailyCap;

    private BucketPlan(Scope scope, Limits limits) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.key = scope.key();
        int n = 0;
        int[] dims = new int[Dimension.COUNT];
        for (Limit l : limits.all()) {
            int d = l.dimension().ordinal();
            amount[d] = l.amount();
            capacity[d] = l.capacityAt(scope.level());
            ceiling[d] = l.ceilingAt(scope.level());
            refillPerNano[d] = l.refillPerNano();
            dims[n++] = d;
        }
        Arrays.sort(dims, 0, n);
        this.dimensions = Arrays.copyOf(dims, n);
        this.hasDailyCap = hasDaily(dimensions);
    }

    /** {@code from} scaled by {@code fraction}, every value rounded down. */
    private BucketPlan(BucketPlan from, double fraction) {
        this.scope = from.scope;
        this.key = from.key;
        this.dimensions = from.dimensions;
        for (int d : dimensions) {
            amount[d] = (long) Math.floor(from.amount[d] * fraction);
            capacity[d] = (long) Math.floor(from.capacity[d] * fraction);
            ceiling[d] = (long) Math.floor(from.ceiling[d] * fraction);
            refillPerNano[d] = from.refillPerNano[d] == 0 ? 0 : amount[d] / 60e9;
        }
        this.hasDailyCap = from.hasDailyCap;
    }

    private static boolean hasDaily(int[] dimensions) {
        boolean daily = false;
        for (int d : dimensions) {
            daily |= Dimension.byOrdinal(d).kind().calendar();
        }
        return daily;
    }

    /**
     * This bucket shrunk to {@code fraction} of itself (one replica's share of a shared limit):
     * every amount, capacity and ceiling scaled and rounded down, so shares never add up to more
     * than the whole; empty when some dimension rounds to nothing.
     */
    public Optional<BucketPlan> scaled(double fraction) {
        BucketPlan p = new BucketPlan(this, fraction);
        for (int d : dimensions) {
            if (p.amount[d] < 1 || p.capacity[d] < 1) {
                return Optional.empty();
            }
        }
        return Optional.of(p);
    }

    /** Whether any dimension is a daily or monthly cap (then the calendar matters). */
    boolean hasDailyCap() {
        return hasDailyCap;
    }

    /** A plan for {@code scope} with {@code limits}, bursts resolved for the scope's level. */
    public static BucketPlan of(Scope scope, Limits limits) {
        return new BucketPlan(scope, limits);
    }

    public Scope scope() {
        return scope;
    }

    /** The store key, {@code tenant:acme}. */
    public String key() {
        return key;
    }

    /** Whether this bucket limits {@code d}. */
    public boolean limits(Dimension d) {
        return capacity[d.ordinal()] > 0;
    }

    /** The configured amount (per minute, in flight, or per day); 0 when not limited. */
    public long amount(Dimension d) {
        return amount[d.ordinal()];
    }

    /** The most the bucket holds at once; 0 when not limited. */
    public long capacity(Dimension d) {
        return capacity[d.ordinal()];
    }

    /**
     * The largest single request this bucket can ever take on {@code d}: above it a request never
     * fits; between the capacity and it a request waits for a full bucket and leaves debt. 0 when
     * not limited.
     */
    public long ceiling(Dimension d) {
        return ceiling[d.ordinal()];
    }

    /** Configured refill per nanosecond of a rate, before any adaptive factor. */
    public double refillPerNano(Dimension d) {
        return refillPerNano[d.ordinal()];
    }

    /** Ordinals of the limited dimensions, ascending. The array must not be modified. */
    int[] dimensionOrdinals() {
        return dimensions;
    }

    /** Ordinals of the limited dimensions, ascending, as a fresh array. */
    public int[] limitedDimensions() {
        return dimensions.clone();
    }

    @Override
    public String toString() {
        return key;
    }
}
