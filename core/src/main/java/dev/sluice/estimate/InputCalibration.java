package dev.sluice.estimate;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The learned ratio of provider-reported prompt tokens to the base count, one per profile. Each
 * profile has its own atomic cell, so learning for one profile never waits on another.
 */
final class InputCalibration {

    /** A ratio belongs to the tokenizer it was measured against; a new tokenizer starts afresh. */
    private record State(Tokenizer method, Ewma ratio) {
    }

    private final EstimatorConfig config;
    private final ConcurrentHashMap<String, AtomicReference<State>> byProfile = new ConcurrentHashMap<>();

    InputCalibration(EstimatorConfig config) {
        this.config = config;
    }

    /** The correction to apply now: the learned ratio once it has enough samples, else the prior. */
    double ratio(String profileId, Tokenizer method) {
        Ewma learned = learned(profileId, method);
        if (learned.samples() >= config.minRatioSamples()) {
            return clamp(learned.value());
        }
        return method == Tokenizer.CALIBRATED ? config.calibratedPriorRatio() : config.tokenizerPriorRatio();
    }

    long samples(String profileId, Tokenizer method) {
        return learned(profileId, method).samples();
    }

    void learn(String profileId, Tokenizer method, long baseTokens, long actualInputTokens) {
        if (baseTokens <= 0 || actualInputTokens <= 0) {
            return; // no ratio to take from an empty prompt or a report without usage
        }
        // Clamping each sample keeps one freak report from dragging the mean for dozens of requests.
        double sample = clamp((double) actualInputTokens / baseTokens);
        byProfile.computeIfAbsent(profileId, id -> new AtomicReference<>(new State(method, Ewma.EMPTY)))
                .updateAndGet(s -> new State(method,
                        (s.method() == method ? s.ratio() : Ewma.EMPTY).add(sample, config.smoothing())));
    }

    private Ewma learned(String profileId, Tokenizer method) {
        AtomicReference<State> cell = byProfile.get(profileId);
        if (cell == null) {
            return Ewma.EMPTY;
        }
        State state = cell.get();
        return state.method() == method ? state.ratio() : Ewma.EMPTY;
    }

    private static double clamp(double ratio) {
        return Math.min(EstimatorConfig.MAX_RATIO, Math.max(EstimatorConfig.MIN_RATIO, ratio));
    }
}
