package dev.sluice.adapt;

import java.util.OptionalLong;

/** How long a refusal pauses a deployment. Pure: the random draw comes in as {@code uniform}. */
final class CooldownPolicy {

    private CooldownPolicy() {}

    /**
     * The pause after a 429 or overload: the provider's retry delay, or the floor when it gave
     * none, plus up to {@code jitterRatio} of it, capped at {@code max}.
     *
     * @param uniform a draw in [0, 1)
     */
    static long pauseNanos(OptionalLong retryAfterMillis, double uniform, CooldownConfig c) {
        long base = retryAfterMillis.isPresent() ? retryAfterMillis.getAsLong() * 1_000_000L : c.floor().toNanos();
        return withJitter(base, uniform, c);
    }

    /**
     * The pause after a 429 that names one per-minute rate: the provider's delay, or the floor,
     * but at most that rate's short window ({@code windowNanos}), plus jitter. The refusal is about
     * the window the refused request met; smaller requests behind it fit the next one.
     */
    static long namedRatePauseNanos(OptionalLong retryAfterMillis, long windowNanos, double uniform,
            CooldownConfig c) {
        long asked = retryAfterMillis.isPresent() ? retryAfterMillis.getAsLong() * 1_000_000L : c.floor().toNanos();
        return withJitter(Math.min(asked, windowNanos), uniform, c);
    }

    /**
     * The pause after an overload (503, 529): the provider's delay, or the floor, cut to
     * {@code faultMax}, plus jitter within it.
     */
    static long faultPauseNanos(OptionalLong retryAfterMillis, double uniform, CooldownConfig c) {
        long asked = retryAfterMillis.isPresent() ? retryAfterMillis.getAsLong() * 1_000_000L : c.floor().toNanos();
        long cap = c.faultMax().toNanos();
        return Math.min(cap, withJitter(Math.min(asked, cap), uniform, c));
    }

    /** The pause after a refusal that waiting will not cure soon: the provider's delay, or the exhausted pause. */
    static long exhaustedPauseNanos(OptionalLong retryAfterMillis, double uniform, CooldownConfig c) {
        long base = retryAfterMillis.isPresent() ? retryAfterMillis.getAsLong() * 1_000_000L
                : c.exhaustedPause().toNanos();
        return withJitter(base, uniform, c);
    }

    private static long withJitter(long baseNanos, double uniform, CooldownConfig c) {
        long max = c.max().toNanos();
        long base = Math.min(Math.max(0, baseNanos), max);
        long jitter = (long) (base * c.jitterRatio() * Math.min(Math.max(uniform, 0), 1));
        return Math.min(max, base + jitter);
    }
}
