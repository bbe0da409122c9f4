package dev.sluice.estimate;

import java.util.OptionalLong;

/**
 * What the estimator has learned for one profile and route, for dashboards and simulator reports.
 *
 * @param profileId      the profile
 * @param route          the route
 * @param inputRatio     the correction applied to the profile's base input count right now (the
 *                       prior until enough samples arrived)
 * @param ratioSamples   settled requests the input ratio learned from, for the profile's current
 *                       tokenizer
 * @param outputSamples  output samples in the route's current window
 * @param outputP50      median output tokens in the window; empty without samples
 * @param outputP95      95th percentile output tokens in the window;
 *                       empty without samples
 * @param cachedFraction the expected cache-read share of the prompt applied right now (0 until
 *                       enough samples arrived)
 * @param cacheSamples   settled requests the cached fraction learned from
 */
public record EstimatorStats(String profileId, String route, double inputRatio, long ratioSamples,
        long outputSamples, OptionalLong outputP50, OptionalLong outputP95,
        double cachedFraction, long cacheSamples) {
}
