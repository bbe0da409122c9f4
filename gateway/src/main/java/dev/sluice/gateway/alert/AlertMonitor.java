package dev.sluice.gateway.alert;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.adapt.AdaptiveSnapshot;
import dev.sluice.governor.GovernorSnapshot;
import dev.sluice.limits.Dimension;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.alert.Alert;
import dev.sluice.runtime.alert.AlertRules;
import dev.sluice.runtime.alert.AttemptTally;
import dev.sluice.runtime.alert.DeploymentReading;
import dev.sluice.runtime.config.AlertSettings;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.store.BucketState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates the alert rules on a timer, off the request's way: every {@code alerts.evaluate_every}
 * it reads each deployment (the governor's snapshot, which may read Redis, hence on a worker; the
 * adaptive state; the attempt tally), asks {@link AlertRules}, and for each change writes a log
 * line, updates {@code sluice_alerts_active} and queues a webhook notification.
 */
public final class AlertMonitor {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.alerts");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Dimension> TOKENS = Set.of(Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS,
            Dimension.TOTAL_TOKENS);

    private final Vertx vertx;
    private final SluiceRuntime runtime;
    private final AlertRules rules;
    private final AttemptTally tally;
    private final Optional<AlertWebhook> webhook;
    private final Optional<MultiGauge> gauge;
    private final long timer;

    public AlertMonitor(Vertx vertx, SluiceRuntime runtime, AlertSettings settings, AttemptTally tally,
            Optional<MeterRegistry> registry) {
        this.vertx = vertx;
        this.runtime = runtime;
        this.rules = new AlertRules(settings);
        this.tally = tally;
        this.webhook = settings.webhook().map(u -> new AlertWebhook(vertx, u, settings.webhookMaxQueue(),
                settings.webhookMaxAttempts(), settings.webhookBackoff()));
        this.gauge = registry.map(r -> MultiGauge.builder("sluice.alerts.active")
                .description("Alerts of the gateway's own rules that hold now (1 per rule and scope)").register(r));
        this.timer = vertx.setPeriodic(settings.evaluateEvery().toMillis(), id -> vertx.executeBlocking(() -> {
            evaluate();
            return null;
        }, true).onFailure(e -> LOG.warn("alerts: an evaluation failed: {}", e.toString())));
    }

    /** The rules' state: what holds now and what resolved lately. */
    public AlertRules rules() {
        return rules;
    }

    /** The webhook, when one is configured. */
    public Optional<AlertWebhook> webhook() {
        return webhook;
    }

    /** Reads the gateway and judges it once; the timer calls it, tests may too. */
    public synchronized List<Alert.Change> evaluate() {
        List<Alert.Change> changes = rules.evaluate(runtime.clock().nanos(), runtime.clock().epochMillis(), readings());
        for (Alert.Change c : changes) {
            Alert a = c.alert();
            boolean fired = c instanceof Alert.Fired;
            if (fired) {
                LOG.warn("alert firing: {} {} {} (value {}, threshold {}): {}", a.severity(), a.name(), a.scope(),
                        a.value(), a.threshold(), a.sentence());
            } else {
                LOG.info("alert resolved: {} {} {}", a.severity(), a.name(), a.scope());
            }
            webhook.ifPresent(w -> w.send(Buffer.buffer(notification(fired ? "firing" : "resolved", a))));
        }
        gauge.ifPresent(g -> {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (Alert a : rules.active()) {
                rows.add(MultiGauge.Row.of(Tags.of("name", a.name(), "scope", a.scope(), "severity", a.severity()), 1));
            }
            g.register(rows, true);
        });
        return changes;
    }

    public void close() {
        vertx.cancelTimer(timer);
        webhook.ifPresent(AlertWebhook::close);
    }

    private List<DeploymentReading> readings() {
        GovernorSnapshot snap = runtime.governor().snapshot();
        Map<String, Integer> queued = new HashMap<>();
        for (var lane : snap.lanes()) {
            queued.merge(lane.deployment(), lane.queued().values().stream().mapToInt(Integer::intValue).sum(),
                    Integer::sum);
        }
        Map<String, BucketState> buckets = new HashMap<>();
        snap.buckets().forEach(b -> buckets.put(b.key(), b));
        List<DeploymentReading> out = new ArrayList<>();
        for (DeploymentConfig d : runtime.config().deployments().values()) {
            Map<String, Double> levels = new HashMap<>();
            boolean paused = false;
            BucketState b = buckets.get("deployment:" + d.id());
            if (b != null) {
                for (var dim : b.dimensions()) {
                    paused |= dim.pausedForNanos() > 0;
                    if (TOKENS.contains(dim.dimension()) && dim.capacity() > 0) {
                        levels.put(dim.dimension().limiterName(), Math.max(0, dim.available()) / dim.capacity());
                    }
                }
            }
            Optional<AdaptiveSnapshot> a = runtime.controller(d.id()).map(c -> c.snapshot());
            AttemptTally.Counts n = tally.take(d.id());
            out.add(new DeploymentReading(d.id(), n.attempts(), n.throttled(), queued.getOrDefault(d.id(), 0), levels,
                    n.estimatedInput(), n.actualInput(), a.map(x -> x.mode().wireName()).orElse("normal"), paused,
                    a.map(AdaptiveSnapshot::rampStage).orElse(0), a.map(AdaptiveSnapshot::rampFraction).orElse(1.0)));
        }
        return out;
    }

    /** The webhook's body: the alert's facts, never a secret (scopes are configured ids). */
    static byte[] notification(String status, Alert a) {
        ObjectNode n = JSON.createObjectNode().put("status", status).put("source", "sluice");
        n.set("alert", json(a));
        try {
            return JSON.writeValueAsBytes(n);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree always serialises", e);
        }
    }

    /** One alert as the admin API and the webhook show it. */
    public static ObjectNode json(Alert a) {
        ObjectNode n = JSON.createObjectNode().put("name", a.name()).put("severity", a.severity())
                .put("scope", a.scope()).put("since", Instant.ofEpochMilli(a.sinceEpochMillis()).toString())
                .put("value", a.value()).put("threshold", a.threshold()).put("sentence", a.sentence());
        if (a.resolvedAtEpochMillis().isPresent()) {
            n.put("resolved_at", Instant.ofEpochMilli(a.resolvedAtEpochMillis().getAsLong()).toString());
        } else {
            n.putNull("resolved_at");
        }
        return n;
    }
}
