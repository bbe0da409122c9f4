package dev.sluice.sim.metrics;

import java.util.EnumMap;
import java.util.Map;

/** Counts and latency quantiles of the requests of one class or one tenant. */
final class GroupStats {

    long requests;
    final Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    long attempts;
    long localRejections;
    long provider429s;
    long providerErrors;
    long timedOutQueued;
    long timedOutGenerating;
    final Quantiles queueWait = new Quantiles();
    final Quantiles latency = new Quantiles();

    void ended(Outcome o, long queuedNanos, long latencyNanos) {
        requests++;
        outcomes.merge(o, 1L, Long::sum);
        queueWait.recordNanos(queuedNanos);
        if (o == Outcome.SUCCESS) {
            latency.recordNanos(latencyNanos);
        }
    }

    long count(Outcome o) {
        return outcomes.getOrDefault(o, 0L);
    }

    double successRate() {
        return requests == 0 ? 1.0 : (double) count(Outcome.SUCCESS) / requests;
    }
}
