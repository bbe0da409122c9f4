package dev.sluice.governor;

/**
 * How replicas sharing one store split a deployment's refill between their queues, so that one
 * replica does not take every refill while the others' waiters time out. Each replica publishes
 * what it has queued (configured-rate cost per class, the unit of fair order); a replica whose
 * queue holds {@code local} of the fleet's {@code local + others} takes that part of the refill:
 * its pump earns credit at {@code part * factor in force} nanoseconds of deployment time per
 * nanosecond and admits a waiter once the credit covers the waiter's cost, which it then pays. A
 * lone waiter of cost {@code C} behind the others' {@code O} is so served after {@code C / part =
 * C + O} at the full rate: when one governor over the whole fleet's queue would serve it.
 * The bucket itself still decides what fits; the credit only stops this replica from taking the
 * others' part. Pure arithmetic; on one replica ({@code others == 0}) none of it applies.
 */
final class FleetShare {

    /**
     * Unspent credit is kept for at most this long of this replica's part: a replica idle for a
     * while must not come back with a claim on a whole burst.
     */
    static final long CREDIT_CAP_NANOS = 1_000_000_000L;

    private FleetShare() {}

    /** This replica's part of the refill: its queued cost over the fleet's; 1 when nobody else queues. */
    static double part(long local, long others) {
        if (others <= 0) {
            return 1.0;
        }
        if (local <= 0) {
            return 0.0;
        }
        return local / (double) (local + others);
    }

    /**
     * Credit after earning at {@code rate} from {@code since} to {@code now}, kept to the larger of
     * {@link #CREDIT_CAP_NANOS} of earning and {@code headCost} (what the next waiter needs); the
     * first accrual ({@code since == Long.MIN_VALUE}) starts at 0.
     */
    static double accrue(double credit, long since, long now, double rate, long headCost) {
        double cap = Math.max(CREDIT_CAP_NANOS * rate, headCost);
        if (since == Long.MIN_VALUE) {
            return Math.min(credit, cap);
        }
        return Math.min(credit + Math.max(0, now - since) * rate, cap);
    }

    /** How long until {@code credit} covers {@code cost} at {@code rate}; a second when the rate is 0. */
    static long untilCovered(double credit, long cost, double rate) {
        if (credit + 1 >= cost) {
            return 0;
        }
        if (rate <= 0) {
            return CREDIT_CAP_NANOS;
        }
        return Math.max(1, (long) Math.ceil(Math.min(Long.MAX_VALUE / 4.0, (cost - credit) / rate)));
    }

    /** The sum of {@code perClass[0..to]}. */
    static long sumTo(long[] perClass, int to) {
        long sum = 0;
        for (int i = 0; i <= to; i++) {
            sum += perClass[i];
        }
        return sum;
    }
}
