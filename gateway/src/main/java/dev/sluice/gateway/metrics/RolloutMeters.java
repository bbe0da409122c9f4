package dev.sluice.gateway.metrics;

import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.runtime.rollout.Rollouts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The rollouts as metrics, from their decisions: {@code sluice_rollout_decisions_total{rollout,
 * action}} (every action of every configured rollout from 0, so a rate exists before the first
 * decision) and {@code sluice_rollout_percent{rollout}}, the target's share in force. Labels are
 * the configuration's rollout names and the seven actions: bounded by the file.
 */
final class RolloutMeters implements Consumer<RolloutDecision> {

    private final Map<String, Map<RolloutDecision.Action, Counter>> decisions = new HashMap<>();
    private final Map<String, Share> shares = new HashMap<>();

    /** The target's share in force; written by the thread that made a decision, read by the scrape. */
    private static final class Share {
        volatile double percent;
    }

    private RolloutMeters(MeterRegistry registry, Rollouts rollouts) {
        for (RolloutView v : rollouts.inspect()) {
            Map<RolloutDecision.Action, Counter> byAction = new EnumMap<>(RolloutDecision.Action.class);
            for (RolloutDecision.Action a : RolloutDecision.Action.values()) {
                byAction.put(a, Counter.builder("sluice.rollout.decisions").tag("rollout", v.id())
                        .tag("action", a.wireName()).description("Rollout decisions, by the analysis or an operator")
                        .register(registry));
            }
            decisions.put(v.id(), byAction);
            Share share = new Share();
            share.percent = v.percent();
            shares.put(v.id(), share);
            Gauge.builder("sluice.rollout.percent", share, s -> s.percent).tag("rollout", v.id())
                    .description("The rollout target's share in force, in percent (of tenants not listed first)")
                    .register(registry);
            // Decisions made before the gateway listened (a rollout the file starts at once) count too.
            v.history().forEach(d -> byAction.get(d.action()).increment());
        }
    }

    /** Meters for every rollout of {@code rollouts}, fed by its decisions from now on. */
    static void bind(MeterRegistry registry, Rollouts rollouts) {
        rollouts.onDecision(new RolloutMeters(registry, rollouts));
    }

    @Override
    public void accept(RolloutDecision d) {
        Map<RolloutDecision.Action, Counter> byAction = decisions.get(d.rollout());
        if (byAction != null) {
            byAction.get(d.action()).increment();
            shares.get(d.rollout()).percent = d.percentAfter();
        }
    }
}
