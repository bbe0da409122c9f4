package dev.sluice.gateway.metrics;

import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.runtime.rollout.Warmups;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The warm-ups as metrics: {@code sluice_warmup_decisions_total{warmup, action}} (every action of
 * every warm-up from 0) and {@code sluice_warmup_grown_minutes{warmup}}, read at the scrape (so a
 * state restored from the journal shows too). A warm-up of the file has its meters from the start;
 * one added through the admin API from its first decision here. Labels are the warm-ups' names.
 */
final class WarmupMeters implements Consumer<WarmupDecision> {

    /** The actions a warm-up decision takes ({@link WarmupDecision#action}). */
    static final List<String> ACTIONS = List.of("started", "grown", "paused", "resumed", "held", "completed");

    private final MeterRegistry registry;
    private final Warmups warmups;
    private final Map<String, Map<String, Counter>> decisions = new ConcurrentHashMap<>();

    private WarmupMeters(MeterRegistry registry, Warmups warmups) {
        this.registry = registry;
        this.warmups = warmups;
        for (Warmups.View v : warmups.inspect()) {
            Map<String, Counter> byAction = meters(v.id());
            // Decisions made before the gateway listened count too.
            v.history().forEach(d -> count(byAction, d.action()));
        }
    }

    private Map<String, Counter> meters(String id) {
        return decisions.computeIfAbsent(id, w -> {
            Map<String, Counter> byAction = new ConcurrentHashMap<>();
            for (String a : ACTIONS) {
                byAction.put(a, Counter.builder("sluice.warmup.decisions").tag("warmup", w).tag("action", a)
                        .description("Warm-up decisions, by the analysis or an operator").register(registry));
            }
            Gauge.builder("sluice.warmup.grown_minutes", warmups, ws -> grown(ws, w)).tag("warmup", w)
                    .description("Minutes a warm-up has grown so far (NaN once deleted)").register(registry);
            return byAction;
        });
    }

    private static double grown(Warmups ws, String id) {
        return ws.inspect().stream().filter(v -> v.id().equals(id)).findFirst().map(v -> (double) v.grown())
                .orElse(Double.NaN);
    }

    private static void count(Map<String, Counter> byAction, String action) {
        Counter c = byAction.get(action);
        if (c != null) {
            c.increment();
        }
    }

    /** Meters for every warm-up of {@code warmups}, fed by its decisions from now on. */
    static void bind(MeterRegistry registry, Warmups warmups) {
        warmups.onDecision(new WarmupMeters(registry, warmups));
    }

    @Override
    public void accept(WarmupDecision d) {
        count(meters(d.warmup()), d.action());
    }
}
