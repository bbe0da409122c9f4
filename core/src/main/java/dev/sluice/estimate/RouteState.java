package dev.sluice.estimate;

import java.util.concurrent.atomic.AtomicReference;

/** What is learned per profile and route: output history and the cached share of the prompt. */
final class RouteState {

    private final OutputWindow output;
    private final AtomicReference<Ewma> cachedFraction = new AtomicReference<>(Ewma.EMPTY);

    RouteState(EstimatorConfig config, long nowNanos) {
        this.output = new OutputWindow(config, nowNanos);
    }

    OutputWindow output() {
        return output;
    }

    Ewma cachedFraction() {
        return cachedFraction.get();
    }

    void learn(ActualTokens actual, double smoothing, long nowNanos) {
        output.record(actual.outputTokens(), nowNanos);
        if (actual.inputTokens() > 0) {
            double sample = (double) actual.cacheReadTokens() / actual.inputTokens();
            cachedFraction.updateAndGet(e -> e.add(sample, smoothing));
        }
    }
}
