package dev.sluice.adapt;

import dev.sluice.limits.ShortWindow;
import java.time.Duration;

/**
 * Learning a provider's short window from its refusals: the arithmetic only, pure functions.
 *
 * <p>The state is a <em>scale</em> {@code s} in {@code [floor, 1]} of the configured (or default)
 * window of one rate of a deployment; the bucket Sluice paces that rate with holds the allowance
 * of the window {@code length x s} at the same burst, and refills at the same per-minute rate. So
 * narrowing changes only how much may go at once, never the rate.
 *
 * <ul>
 *   <li>A refusal naming the rate while Sluice's own pacing of it had room ({@link #hadRoom}: it
 *       let through at most {@code (1 - room)} of the per-minute limit over the last minute) says
 *       the provider's window is shorter than the one Sluice paces: {@code s' = max(floor, s x
 *       narrow)}, once per burst of refusals. A refusal with the minute spent says the rate is
 *       wrong, not the window; that is the multiplier's ({@link MultiplierPolicy}), and the scale
 *       stays. (The bucket's own level is no test: a bucket a little deeper than the provider's
 *       window is refused with itself empty, every burst.)</li>
 *   <li>Each whole configured window that passed without a refusal naming the rate widens it
 *       again, slowly: {@code s' = min(1, s + widen x cleanWindows)}. Widening probes: a scale
 *       past the provider's window costs one refusal and a halving, so the default {@code widen =
 *       1/240} (an eighth per 30 clean windows) spends about one refusal per half-minute of
 *       saturated bursts once the window is learned.</li>
 * </ul>
 *
 * <p>Not yet wired into {@link AdaptiveController}: the stores scale a bucket's refill and
 * capacity together ({@code QuotaStore.control}), and a narrowed window needs its capacity scaled
 * alone. See docs/ADAPTIVE.md, Known limits.
 */
final class WindowLearning {

    /**
     * @param narrow the scale's multiple after a refusal with room, in (0, 1)
     * @param floor the narrowest scale, in (0, 1]
     * @param widen what each clean window adds back to the scale, in (0, 1]
     * @param room the share of the per-minute limit Sluice must have left unspent over the last
     *     minute for a refusal to count against the window, in [0, 1]
     */
    record Config(double narrow, double floor, double widen, double room) {

        /** Halve on a refusal with room, down to an eighth; an eighth back per 30 clean windows. */
        static final Config DEFAULT = new Config(0.5, 0.125, 0.125 / 30, 0.05);

        Config {
            if (!(narrow > 0 && narrow < 1) || !(floor > 0 && floor <= 1) || !(widen > 0 && widen <= 1)
                    || !(room >= 0 && room <= 1)) {
                throw new IllegalArgumentException("window learning: narrow in (0,1), floor and widen in (0,1],"
                        + " room in [0,1]; got " + narrow + ", " + floor + ", " + widen + ", " + room);
            }
        }
    }

    private WindowLearning() {}

    /**
     * Whether a refusal is evidence against the window: Sluice let through {@code sentLastMinute}
     * of the rate over the last minute, at most {@code (1 - room) x limit}.
     */
    static boolean hadRoom(long sentLastMinute, long limit, Config c) {
        return limit > 0 && sentLastMinute <= (1 - c.room()) * limit;
    }

    /** After a refusal naming the rate with room in the bucket: {@code max(floor, s x narrow)}. */
    static double narrow(double s, Config c) {
        return Math.max(c.floor(), s * c.narrow());
    }

    /** After {@code cleanWindows} whole windows without such a refusal: {@code min(1, s + widen x n)}. */
    static double widen(double s, long cleanWindows, Config c) {
        return Math.min(1.0, s + c.widen() * Math.max(0, cleanWindows));
    }

    /**
     * The window Sluice paces with at scale {@code s}: the configured window's length times
     * {@code s} (never below {@link ShortWindow#MIN_LENGTH}), at the configured burst.
     */
    static ShortWindow paced(ShortWindow configured, double s) {
        long nanos = Math.max(ShortWindow.MIN_LENGTH.toNanos(), Math.round(configured.length().toNanos() * s));
        return configured.withLength(Duration.ofNanos(nanos));
    }
}
