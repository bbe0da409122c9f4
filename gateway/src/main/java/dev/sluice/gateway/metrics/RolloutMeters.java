package dev.sluice.gateway.metrics;

import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.runtime.rollout.Rollouts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The rollouts as metrics, from their decisions: {@code sluice_rollout_decisions_total{rollout,
 * action}} (every action of every rollout from 0, so a rate exists before the first decision) and
 * {@code sluice_rollout_percent{rollout}}, the target's share in force. The meters of a rollout the
 * file names exist from the start; one added through the admin API gets them at its first decision
 * here. Labels are the rollouts' names (the file's and the API's, which an operator creates) and
 * the seven actions. The share is read from the rollout at the scrape, so a state restored from
 * the journal (another replica's decision, or one before a restart) shows too.
 */
final class RolloutMeters implements Consumer<RolloutDecision> {

    private final MeterRegistry registry;
    private final Rollouts rollouts;
    private final Map<String, Map<RolloutDecision.Action, Counter>> decisions = new ConcurrentHashMap<>();

    private RolloutMeters(MeterRegistry registry, Rollouts rollouts) {
        this.registry = registry;
        this.rollouts = rollouts;
        for (RolloutView v : rollouts.inspect()) {
            Map<RolloutDecision.Action, Counter> byAction = meters(v.id());
            // Decisions made before the gateway listened (a rollout the file starts at once) count too.
            v.history().forEach(d -> byAction.get(d.action()).increment());
        }
    }

    private Map<RolloutDecision.Action, Counter> meters(String id) {
        return decisions.computeIfAbsent(id, r -> {
            Map<RolloutDecision.Action, Counter> byAction = new EnumMap<>(RolloutDecision.Action.class);
            for (RolloutDecision.Action a : RolloutDecision.Action.values()) {
                byAction.put(a, Counter.builder("sluice.rollout.decisions").tag("rollout", r)
                        .tag("action", a.wireName()).description("Rollout decisions, by the analysis or an operator")
                        .register(registry));
            }
            Gauge.builder("sluice.rollout.percent", rollouts, rs -> percent(rs, r)).tag("rollout", r)
                    .description("The rollout target's share in force, in percent (of tenants not listed first)")
                    .register(registry);
            // The figures the latest analysis decision was drawn from, whichever replica made it.
            figure(r, "sluice.rollout.interval.attempts", "Attempts on the target in the latest judged interval",
                    f -> f.attempts());
            figure(r, "sluice.rollout.interval.provider_429_rate",
                    "Provider 429s over attempts on the target in the latest judged interval", f -> f.provider429Rate());
            figure(r, "sluice.rollout.interval.error_rate",
                    "Failures over attempts on the target in the latest judged interval", f -> f.errorRate());
            figure(r, "sluice.rollout.interval.fallback_rate",
                    "Requests that left the target over requests on it in the latest judged interval",
                    f -> f.fallbackRate());
            figure(r, "sluice.rollout.interval.p95_latency_seconds",
                    "The target's p95 latency in the latest judged interval (NaN without an answer)",
                    f -> f.p95LatencyNanos().isPresent() ? f.p95LatencyNanos().getAsLong() / 1e9 : Double.NaN);
            return byAction;
        });
    }

    private void figure(String id, String name, String description,
            java.util.function.ToDoubleFunction<dev.sluice.runtime.rollout.IntervalFigures> of) {
        Gauge.builder(name, rollouts, rs -> rs.lastFigures(id).map(of::applyAsDouble).orElse(Double.NaN))
                .tag("rollout", id).description(description).register(registry);
    }

    /** The share in force; 0 once the rollout is deleted. */
    private static double percent(Rollouts rs, String id) {
        return rs.percent(id).orElse(0);
    }

    /** Meters for every rollout of {@code rollouts}, fed by its decisions from now on. */
    static void bind(MeterRegistry registry, Rollouts rollouts) {
        rollouts.onDecision(new RolloutMeters(registry, rollouts));
    }

    @Override
    public void accept(RolloutDecision d) {
        meters(d.rollout()).get(d.action()).increment();
    }
}
