package dev.sluice.adapt;

import dev.sluice.limits.Limit;
import dev.sluice.limits.ScopeLevel;
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
     * but at most {@code windowNanos} (the rate's {@link #namedRateCapNanos}), plus jitter. The refusal is about
     * the window the refused request met; smaller requests behind it fit the next one.
     */
    static long namedRatePauseNanos(OptionalLong retryAfterMillis, long windowNanos, double uniform,
            CooldownConfig c) {
        long asked = retryAfterMillis.isPresent() ? retryAfterMillis.getAsLong() * 1_000_000L : c.floor().toNanos();
        return withJitter(Math.min(asked, windowNanos), uniform, c);
    }

    /**
     * The longest pause a 429 naming {@code limit}'s rate may cause at {@code level}: the time the
     * per-minute rate takes to refill what the provider's short window holds, {@code capacity x 60 s
     * / amount} ({@link Limit#capacityAt}), but never above {@code rateWindowNanos}. For a windowed
     * rate that is {@code window length x burst} (1 s for the default window), for a configured
     * burst {@code burst x 60 s / amount}, and for a minute-deep bucket the whole minute, cut to
     * {@code rateWindowNanos}. The refusal is about that window: once it has refilled, the request
     * that met it fits again, and every smaller one behind it sooner. Rounded up to whole
     * milliseconds; at least 1 ns.
     */
    static long namedRateCapNanos(Limit limit, ScopeLevel level, long rateWindowNanos) {
        double refill = limit.refillPerNano();
        if (refill <= 0) {
            return Math.max(1, rateWindowNanos);
        }
        // In whole milliseconds, rounded up: the allowance is rounded down to whole units, and a
        // pause a hair short of the window would land in the window it is waiting out.
        double millis = Math.ceil(limit.capacityAt(level) / refill / 1e6 - 1e-3);
        return Math.max(1, Math.min(rateWindowNanos, (long) millis * 1_000_000L));
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
