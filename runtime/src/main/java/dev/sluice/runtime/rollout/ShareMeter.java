package dev.sluice.runtime.rollout;

import dev.sluice.limits.Dimension;
import java.util.Map;

/**
 * The target's part of a profile's first attempts in each clock minute, and the two bounds on it.
 * Not thread-safe: its {@link Rollouts} entry guards it. Pure: time comes in as nanos of wall
 * time (the minute is the epoch's, so that replicas agree on it); a reading earlier than the
 * minute in progress (the wall clock set back) counts in that minute.
 *
 * <ul>
 *   <li>The step's share, in requests and in tokens: a request assigned to the target goes there
 *       only while the target's requests and its tokens (input plus output, as reserved) this
 *       minute are below the step's share of the profile's, this request counted in the
 *       profile's. So the target's share of either never passes the step by more than that one
 *       request: a share of requests that carries more than its share of tokens is cut.</li>
 *   <li>The growth ceiling, per dimension named: the target takes in a minute at most what it
 *       took in the minute before plus the ceiling (a quiet minute starts it again from zero, as
 *       a provider's acceleration limit would). The target's, not this replica's: what the other
 *       replicas sharing the store last said they sent there ({@link #others}, read off the
 *       request path) counts with this replica's own, in both minutes. Alone it is this
 *       replica's own.</li>
 * </ul>
 * A request the bounds keep off the target runs on the source. The share needs no fleet: each
 * replica keeps its own part of its own requests, so the fleet's passes the step by at most one
 * request per replica.
 */
final class ShareMeter {

    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final Map<Dimension, Long> growth;
    private long minute = Long.MIN_VALUE;
    private final long[] total = new long[3];
    private final long[] target = new long[3];
    private final long[] totalBefore = new long[3];
    private final long[] targetBefore = new long[3];
    /** What the other replicas last said they sent to the target, by epoch minute: requests, input, output. */
    private Map<Long, long[]> others = Map.of();

    private static final int REQUESTS = 0;
    private static final int INPUT = 1;
    private static final int OUTPUT = 2;
    private static final long[] NONE = new long[3];

    ShareMeter(Map<Dimension, Long> growthPerMinute) {
        this.growth = Map.copyOf(growthPerMinute);
    }

    /**
     * Counts a first attempt of the profile at {@code now} and says whether it runs on the target.
     *
     * @param assigned whether its sticky key puts it on the target at the stage's share
     * @param percent the stage's share for its tenant
     */
    boolean take(long now, boolean assigned, double percent, long inputTokens, long outputTokens) {
        roll(now);
        total[REQUESTS]++;
        total[INPUT] += inputTokens;
        total[OUTPUT] += outputTokens;
        if (!assigned) {
            return false;
        }
        double share = percent / 100;
        boolean withinShare = target[REQUESTS] < share * total[REQUESTS]
                && (total[INPUT] + total[OUTPUT] == 0
                        || target[INPUT] + target[OUTPUT] < share * (total[INPUT] + total[OUTPUT]));
        if (!withinShare || !withinGrowth(inputTokens, outputTokens)) {
            return false;
        }
        target[REQUESTS]++;
        target[INPUT] += inputTokens;
        target[OUTPUT] += outputTokens;
        return true;
    }

    private boolean withinGrowth(long in, long out) {
        long[] othersNow = others.getOrDefault(minute, NONE);
        long[] othersBefore = others.getOrDefault(minute - 1, NONE);
        for (Map.Entry<Dimension, Long> g : growth.entrySet()) {
            long now = used(target, g.getKey()) + used(othersNow, g.getKey());
            long before = used(targetBefore, g.getKey()) + used(othersBefore, g.getKey());
            long adding = switch (g.getKey()) {
                case REQUESTS -> 1;
                case INPUT_TOKENS -> in;
                case OUTPUT_TOKENS -> out;
                default -> in + out;
            };
            if (now + adding > before + g.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * What this replica sent to the target, for the others' ceilings: the epoch minute in progress
     * at {@code now}, then requests, input and output tokens in it and in the minute before.
     */
    long[] sent(long now) {
        roll(now);
        return new long[] {minute, target[REQUESTS], target[INPUT], target[OUTPUT], targetBefore[REQUESTS],
            targetBefore[INPUT], targetBefore[OUTPUT]};
    }

    /**
     * Takes what the other replicas last said they sent to the target (each as {@link #sent}
     * gives it), in place of what they said before: the growth ceiling counts it from now.
     */
    void others(java.util.List<long[]> sentByOthers) {
        Map<Long, long[]> byMinute = new java.util.HashMap<>();
        for (long[] s : sentByOthers) {
            long[] now = byMinute.computeIfAbsent(s[0], k -> new long[3]);
            long[] before = byMinute.computeIfAbsent(s[0] - 1, k -> new long[3]);
            for (int i = 0; i < 3; i++) {
                now[i] += s[1 + i];
                before[i] += s[4 + i];
            }
        }
        others = byMinute;
    }

    /** The profile's first attempts in the last whole minute (this one while it is the first): requests, input, output. */
    long[] profileLastMinute(long now) {
        roll(now);
        return totalBefore[REQUESTS] == 0 ? total.clone() : totalBefore.clone();
    }

    /** What the target took this minute, in {@code d}. */
    long targetThisMinute(long now, Dimension d) {
        roll(now);
        return used(target, d);
    }

    private static long used(long[] counts, Dimension d) {
        return switch (d) {
            case REQUESTS -> counts[REQUESTS];
            case INPUT_TOKENS -> counts[INPUT];
            case OUTPUT_TOKENS -> counts[OUTPUT];
            default -> counts[INPUT] + counts[OUTPUT];
        };
    }

    private void roll(long now) {
        long m = Math.floorDiv(now, MINUTE_NANOS);
        if (m <= minute) {
            return;
        }
        if (m == minute + 1) {
            System.arraycopy(total, 0, totalBefore, 0, 3);
            System.arraycopy(target, 0, targetBefore, 0, 3);
        } else {
            java.util.Arrays.fill(totalBefore, 0);
            java.util.Arrays.fill(targetBefore, 0);
        }
        java.util.Arrays.fill(total, 0);
        java.util.Arrays.fill(target, 0);
        minute = m;
    }
}
