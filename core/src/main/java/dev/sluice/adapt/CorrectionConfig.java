package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Correction from the provider's own figures: remaining capacity and the limit in force.
 *
 * @param syncDown lower the deployment's bucket at once when the provider says less remains
 * @param adoptObservedLimits when the provider's limit figures consistently differ from the
 *     configured limit, run at the observed limit (never above the configured one)
 * @param driftTolerance a limit figure within this fraction of the limit in force counts as agreeing
 * @param driftConfirmations consecutive figures on the same side needed before the observed limit is adopted
 * @param reportedWindows the window a provider's limit figure counts over, per dimension; absent
 *     dimensions count per minute (Azure reports its request limit per 10 s: map {@code rpm} to 10 s)
 */
public record CorrectionConfig(boolean syncDown, boolean adoptObservedLimits, double driftTolerance,
        int driftConfirmations, Map<Dimension, Duration> reportedWindows) {

    /** 5%: providers round their figures (Anthropic to the thousand); smaller gaps are noise, not drift. */
    public static final double DEFAULT_DRIFT_TOLERANCE = 0.05;

    /** Three figures in a row: one odd header (a stale replica, a rounding) must not move the limit. */
    public static final int DEFAULT_DRIFT_CONFIRMATIONS = 3;

    private static final Duration MINUTE = Duration.ofMinutes(1);

    public CorrectionConfig {
        Objects.requireNonNull(reportedWindows, "reportedWindows");
        ConfigException.require(driftTolerance >= 0 && driftTolerance < 1, "drift_tolerance", "in [0, 1)",
                driftTolerance);
        ConfigException.require(driftConfirmations >= 1, "drift_confirmations", ">= 1", driftConfirmations);
        EnumMap<Dimension, Duration> w = new EnumMap<>(Dimension.class);
        for (Map.Entry<Dimension, Duration> e : reportedWindows.entrySet()) {
            Dimension d = Objects.requireNonNull(e.getKey(), "reportedWindows key");
            Duration window = Objects.requireNonNull(e.getValue(), "reportedWindows value");
            ConfigException.require(d.kind() == Dimension.Kind.RATE, "reported_windows." + d.limiterName(),
                    "a rate (rpm, input_tpm, output_tpm, tpm)", d.kind().name().toLowerCase(java.util.Locale.ROOT));
            ConfigException.require(window.isPositive(), "reported_windows." + d.limiterName(), "> 0", window);
            w.put(d, window);
        }
        reportedWindows = java.util.Collections.unmodifiableMap(w);
    }

    /** The documented defaults: sync down, adopt observed limits after 3 figures beyond 5%, per-minute figures. */
    public static CorrectionConfig defaults() {
        return new CorrectionConfig(true, true, DEFAULT_DRIFT_TOLERANCE, DEFAULT_DRIFT_CONFIRMATIONS, Map.of());
    }

    /** The window a limit figure on {@code d} counts over. */
    public Duration reportedWindow(Dimension d) {
        return reportedWindows.getOrDefault(d, MINUTE);
    }
}
