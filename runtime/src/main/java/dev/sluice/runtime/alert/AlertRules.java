package dev.sluice.runtime.alert;

import dev.sluice.runtime.config.AlertSettings;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The gateway's alert rules over readings taken at each evaluation: pure (time is passed in, no
 * threads), so every rule is tested with exact numbers and no waiting. One alert per rule and
 * scope; it fires when its rule begins to hold and resolves when it stops. Called by one evaluator
 * at a time; read (active, recent) from any thread.
 *
 * <ul>
 *   <li>{@code provider_429_rate} (warning): a deployment's 429s over its attempts since the last
 *       evaluation above {@code provider_429_ratio}, with at least {@code provider_429_min_attempts};
 *   <li>{@code queue_growth} (warning): more than {@code queue_depth} requests waiting and more than
 *       at the last evaluation; resolves once no more than {@code queue_depth} wait;
 *   <li>{@code token_pressure} (warning): a deployment's token bucket below {@code bucket_low_fraction}
 *       of its capacity at every evaluation for {@code bucket_low_for};
 *   <li>{@code estimate_drift} (info): provider-reported input over estimated input above
 *       {@code estimate_drift} or below its inverse, over at least {@code estimate_min_tokens}
 *       estimated (fewer leave it as it was);
 *   <li>{@code deployment_degraded} (critical): the deployment in brownout or load shedding;
 *   <li>{@code deployment_paused} (warning): a cooldown pauses one of its rates;
 *   <li>{@code ramp_stalled} (warning): its ramp below full, on one stage for {@code ramp_stalled_for}.
 * </ul>
 */
public final class AlertRules {

    /** How many resolved alerts are kept for {@link #recent()}. */
    public static final int RECENT = 50;

    private final AlertSettings settings;
    private final Map<String, Alert> active = new LinkedHashMap<>();
    private final Deque<Alert> recent = new ArrayDeque<>();
    private final Map<String, Long> lowSinceNanos = new HashMap<>();
    private final Map<String, Integer> lastQueued = new HashMap<>();
    private final Map<String, long[]> rampStageSince = new HashMap<>();

    public AlertRules(AlertSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** Judges {@code readings} at {@code nowNanos} (monotonic) and {@code epochMillis} (wall); returns what changed. */
    public synchronized List<Alert.Change> evaluate(long nowNanos, long epochMillis, List<DeploymentReading> readings) {
        List<Alert.Change> changes = new ArrayList<>();
        for (DeploymentReading r : readings) {
            String scope = "deployment:" + r.deployment();
            double ratio = r.attempts() == 0 ? 0 : (double) r.throttled() / r.attempts();
            judge(changes, epochMillis, "provider_429_rate", "warning", scope,
                    r.attempts() >= settings.provider429MinAttempts() && ratio > settings.provider429Ratio(), ratio,
                    settings.provider429Ratio(), String.format(Locale.ROOT, "%s: the provider refused %d of %d attempts "
                            + "(%.1f%%) with a 429: its limits are lower than configured, or another client shares them.",
                            r.deployment(), r.throttled(), r.attempts(), ratio * 100));

            Integer before = lastQueued.put(r.deployment(), r.queued());
            boolean over = r.queued() > settings.queueDepth();
            boolean growing = over && before != null && r.queued() > before;
            String queueKey = key("queue_growth", scope);
            judge(changes, epochMillis, "queue_growth", "warning", scope, active.containsKey(queueKey) ? over : growing,
                    r.queued(), settings.queueDepth(), r.deployment() + ": " + r.queued() + " requests wait, more than "
                            + settings.queueDepth() + " and growing: arrivals outpace its capacity.");

            for (var level : r.bucketLevels().entrySet()) {
                String s = scope + "/" + level.getKey();
                boolean low = level.getValue() < settings.bucketLowFraction();
                if (low) {
                    lowSinceNanos.putIfAbsent(s, nowNanos);
                } else {
                    lowSinceNanos.remove(s);
                }
                boolean longLow = low && nowNanos - lowSinceNanos.get(s) >= settings.bucketLowFor().toNanos();
                judge(changes, epochMillis, "token_pressure", "warning", s, longLow, level.getValue(),
                        settings.bucketLowFraction(), String.format(Locale.ROOT, "%s %s has stayed below %.0f%% of its "
                                + "capacity for %d min: demand uses it all; expect queueing and refusals.", r.deployment(),
                                level.getKey(), settings.bucketLowFraction() * 100, settings.bucketLowFor().toMinutes()));
            }

            if (r.estimatedInput() >= settings.estimateMinTokens()) {
                double drift = (double) r.actualInput() / r.estimatedInput();
                boolean off = drift > settings.estimateDrift() || drift < 1 / settings.estimateDrift();
                judge(changes, epochMillis, "estimate_drift", "info", scope, off, drift, settings.estimateDrift(),
                        String.format(Locale.ROOT, "%s: the provider counted %.2fx the input Sluice estimated (%d "
                                + "against %d tokens): reservations are %s.", r.deployment(), drift, r.actualInput(),
                                r.estimatedInput(), drift > 1 ? "too small, the provider will refuse first"
                                        : "too large, capacity is left unused"));
            }

            boolean degraded = r.mode().equals("brownout") || r.mode().equals("load_shedding");
            judge(changes, epochMillis, "deployment_degraded", "critical", scope, degraded, degraded ? 1 : 0, 1,
                    r.deployment() + " is in " + r.mode() + ": adaptive control trims or sheds its requests because "
                            + "the provider keeps refusing or slowing down.");
            judge(changes, epochMillis, "deployment_paused", "warning", scope, r.paused(), r.paused() ? 1 : 0, 1,
                    r.deployment() + " is paused by a cooldown after a provider refusal.");

            long[] stage = rampStageSince.get(r.deployment());
            if (stage == null || stage[0] != r.rampStage()) {
                stage = new long[] {r.rampStage(), nowNanos};
                rampStageSince.put(r.deployment(), stage);
            }
            boolean stalled = r.rampFraction() < 1 && nowNanos - stage[1] >= settings.rampStalledFor().toNanos();
            judge(changes, epochMillis, "ramp_stalled", "warning", scope, stalled, r.rampFraction(), 1,
                    String.format(Locale.ROOT, "%s's ramp has stayed at stage %d (%.0f%% of its capacity) for %d min.",
                            r.deployment(), r.rampStage(), r.rampFraction() * 100, settings.rampStalledFor().toMinutes()));
        }
        return changes;
    }

    /** The alerts that hold now, in the order they fired. */
    public synchronized List<Alert> active() {
        return List.copyOf(active.values());
    }

    /** The last {@link #RECENT} alerts resolved, newest first. */
    public synchronized List<Alert> recent() {
        return List.copyOf(recent);
    }

    private void judge(List<Alert.Change> changes, long epochMillis, String name, String severity, String scope,
            boolean holds, double value, double threshold, String sentence) {
        String k = key(name, scope);
        Alert was = active.get(k);
        if (holds) {
            Alert now = new Alert(name, severity, scope, was == null ? epochMillis : was.sinceEpochMillis(), value,
                    threshold, sentence, OptionalLong.empty());
            active.put(k, now);
            if (was == null) {
                changes.add(new Alert.Fired(now));
            }
        } else if (was != null) {
            active.remove(k);
            Alert done = new Alert(name, severity, scope, was.sinceEpochMillis(), value, threshold, was.sentence(),
                    OptionalLong.of(epochMillis));
            recent.addFirst(done);
            while (recent.size() > RECENT) {
                recent.removeLast();
            }
            changes.add(new Alert.Resolved(done));
        }
    }

    private static String key(String name, String scope) {
        return name + " " + scope;
    }
}
