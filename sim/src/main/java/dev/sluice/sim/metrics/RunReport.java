package dev.sluice.sim.metrics;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.governor.TrafficClass;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The metrics of one run of one strategy on one scenario: headline numbers for tables and goals,
 * and the full JSON object.
 *
 * @param scenario scenario name
 * @param strategy strategy name
 * @param provider429Rate provider 429s among dispatched attempts
 * @param utilization over the saturated minutes of each saturated deployment, what the provider
 *     accepted of the capacity of its binding limit; the lowest over saturated deployments, NaN
 *     when no deployment was saturated
 * @param saturated deployments with at least one saturated minute
 * @param goodputTokens prompt plus output tokens of successful requests
 * @param jainIndex the lowest weighted Jain index over deployments
 * @param weightedShareError the largest share error over deployments
 * @param lost requests that never ended
 * @param timeouts requests still queued or generating when their client's deadline passed
 * @param interactiveFits whether the interactive and critical demand alone fits every limit of
 *     every deployment (what the provider allowed over the run)
 * @param providerChangesLimits whether a provider cut its own limits (a warm-up or an unannounced change)
 * @param classes per class: success rate and queue-wait p99 in ms
 * @param json everything, for {@code --format json}
 */
public record RunReport(String scenario, String strategy, double provider429Rate, double utilization,
        List<String> saturated, long goodputTokens, double jainIndex, double weightedShareError, long lost,
        long timeouts, boolean interactiveFits, boolean providerChangesLimits,
        Map<TrafficClass, ClassSummary> classes, ObjectNode json) {

    public RunReport {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(strategy, "strategy");
        saturated = List.copyOf(saturated);
        classes = Map.copyOf(classes);
        Objects.requireNonNull(json, "json");
    }

    /**
     * @param requests requests of the class
     * @param successRate share that succeeded
     * @param queueWaitP99Millis 99th percentile of time spent waiting in the gateway
     */
    public record ClassSummary(long requests, double successRate, double queueWaitP99Millis) {}

    /** The interactive class's success rate; NaN when the run had no interactive request. */
    public double interactiveSuccessRate() {
        ClassSummary c = classes.get(TrafficClass.INTERACTIVE);
        return c == null || c.requests() == 0 ? Double.NaN : c.successRate();
    }
}
