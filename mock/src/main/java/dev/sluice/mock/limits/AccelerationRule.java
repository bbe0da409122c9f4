package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * Rejects a request when the accepted-request rate over the recent window, counting the request,
 * would exceed {@code factor} times the rate over the baseline window just before it, plus a floor.
 * Models Anthropic's "acceleration limits": a sharp ramp is refused below the published limits.
 *
 * <p>Rates are per second. With a 5 s recent window, a 60 s baseline, factor 2 and floor 1/s, a
 * baseline of 60 requests (1/s) allows (2 x 1 + 1) x 5 = 15 requests in the recent window.
 *
 * @param enabled whether the rule applies at all
 * @param factor multiple of the baseline rate allowed; finite, {@code >= 0}
 * @param floorPerSecond rate always allowed regardless of the baseline; finite, {@code >= 0}
 * @param recentWindow the short window whose rate is judged; positive
 * @param baselineWindow the window before it that sets the baseline; positive
 */
public record AccelerationRule(
        boolean enabled, double factor, double floorPerSecond, Duration recentWindow, Duration baselineWindow) {

    /** Default recent window: 5 s. */
    public static final Duration DEFAULT_RECENT_WINDOW = Duration.ofSeconds(5);

    /** Default baseline window: the minute before the recent window. */
    public static final Duration DEFAULT_BASELINE_WINDOW = Duration.ofMinutes(1);

    private static final AccelerationRule OFF =
            new AccelerationRule(false, 0, 0, DEFAULT_RECENT_WINDOW, DEFAULT_BASELINE_WINDOW);

    public AccelerationRule {
        if (!Double.isFinite(factor) || factor < 0) {
            throw new IllegalArgumentException("factor: " + factor + " (expected: finite, >= 0)");
        }
        if (!Double.isFinite(floorPerSecond) || floorPerSecond < 0) {
            throw new IllegalArgumentException("floorPerSecond: " + floorPerSecond + " (expected: finite, >= 0)");
        }
        Objects.requireNonNull(recentWindow, "recentWindow");
        Objects.requireNonNull(baselineWindow, "baselineWindow");
        if (recentWindow.isNegative() || recentWindow.isZero()) {
            throw new IllegalArgumentException("recentWindow: " + recentWindow + " (expected: > 0)");
        }
        if (baselineWindow.isNegative() || baselineWindow.isZero()) {
            throw new IllegalArgumentException("baselineWindow: " + baselineWindow + " (expected: > 0)");
        }
    }

    /** The rule that never rejects. */
    public static AccelerationRule off() {
        return OFF;
    }

    /** An enabled rule with the default windows (5 s judged against the 60 s before). */
    public static AccelerationRule of(double factor, double floorPerSecond) {
        return new AccelerationRule(true, factor, floorPerSecond, DEFAULT_RECENT_WINDOW, DEFAULT_BASELINE_WINDOW);
    }

    /** The highest rate (per second) the recent window may reach given a baseline rate. */
    public double allowedRate(double baselinePerSecond) {
        return factor * baselinePerSecond + floorPerSecond;
    }
}
