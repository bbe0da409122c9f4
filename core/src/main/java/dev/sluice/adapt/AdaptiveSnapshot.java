package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import java.util.Map;
import java.util.Objects;

/**
 * One deployment's adaptive state, for the dashboard and the admin API.
 *
 * @param deployment the deployment
 * @param mode its operating mode
 * @param modeSinceNanos when it entered that mode
 * @param multipliers the adaptive multiplier per limited rate
 * @param ceiling the learned ceiling on the multiplier (1 unless learned without headers)
 * @param observedLimitFactors the fraction of the configured limit in force per rate (below 1 after drift)
 * @param rampStage the ramp's stage index
 * @param rampFraction the ramp's fraction of the target now
 * @param rateFactors the factor applied to each rate's refill and capacity
 * @param pausedForNanos the cooldown left per rate (0 when none)
 * @param answers answers in the window
 * @param limitedRatio 429 ratio over the window (0 with too few answers)
 * @param queuePressure queue pressure over the window
 * @param latencyRatio window p95 over the baseline (0 when unknown)
 * @param headerless whether the deployment currently gives no limit figures
 * @param throttleProbability the client-side throttling probability now (0 when off)
 * @param climbSlowdowns how many times the multiplier's climb by clean time is halved now, 0 to 4
 *     ({@link MultiplierPolicy#slowdownsAfterCut}): why a deployment recovers slowly after refusals
 */
public record AdaptiveSnapshot(String deployment, Mode mode, long modeSinceNanos, Map<Dimension, Double> multipliers,
        double ceiling, Map<Dimension, Double> observedLimitFactors, int rampStage, double rampFraction,
        Map<Dimension, Double> rateFactors, Map<Dimension, Long> pausedForNanos, long answers, double limitedRatio,
        double queuePressure, double latencyRatio, boolean headerless, double throttleProbability,
        int climbSlowdowns) {

    public AdaptiveSnapshot {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(mode, "mode");
        multipliers = Map.copyOf(multipliers);
        observedLimitFactors = Map.copyOf(observedLimitFactors);
        rateFactors = Map.copyOf(rateFactors);
        pausedForNanos = Map.copyOf(pausedForNanos);
    }
}
