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
 * @param utilization accepted over capacity of the binding limit, averaged over deployments
 * @param saturated deployments whose offered demand exceeded capacity on their binding limit
 * @param saturatedUtilization the lowest utilisation among saturated deployments (1 when none)
 * @param goodputTokens prompt plus output tokens of successful requests
 * @param jainIndex the lowest weighted Jain index over deployments
 * @param weightedShareError the largest share error over deployments
 * @param lost requests that never ended
 * @param classes per class: success rate and queue-wait p99 in ms
 * @param json everything, for {@code --format json}
 */
public record RunReport(String scenario, String strategy, double provider429Rate, double utilization,
        List<String> saturated, double saturatedUtilization, long goodputTokens, double jainIndex,
        double weightedShareError, long lost, Map<TrafficClass, ClassSummary> classes, ObjectNode json) {

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
}
