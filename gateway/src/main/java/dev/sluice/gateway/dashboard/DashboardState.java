package dev.sluice.gateway.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.adapt.AdaptiveSnapshot;
import dev.sluice.governor.GovernorSnapshot;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.ControlJson;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.runtime.control.Pause;
import dev.sluice.store.BucketState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code GET /admin/dashboard/state}: one JSON document answering the dashboard's questions, made
 * from what Sluice already knows: the last minute of request events ({@link LastMinute}), the
 * governor's snapshot (buckets, queues, shares), the adaptive controllers' snapshots and the
 * pauses. A partner sees its own tenants and pauses only: profiles, deployments and providers are
 * shared by every tenant. Field by field: docs/DASHBOARD.md.
 */
public final class DashboardState {

    static final ObjectMapper JSON = new ObjectMapper();

    private DashboardState() {}

    /** The document for {@code actor}. Reads the store (Redis, perhaps): call it off any event loop. */
    public static ObjectNode of(ControlPlane control, LastMinute lastMinute, Actor actor) {
        SluiceRuntime runtime = control.runtime();
        LastMinute.Counts m = lastMinute.minute();
        boolean partner = actor.scope().kind() == dev.sluice.runtime.config.AdminScope.Kind.PARTNER;
        ObjectNode out = JSON.createObjectNode();
        out.put("at", Instant.ofEpochMilli(runtime.clock().epochMillis()).toString());
        out.put("window_seconds", LastMinute.SECONDS);
        out.put("view", partner ? "partner" : "all");
        tenants(out.putArray("tenants"), m, control, actor);
        spend(out.putArray("spend"), control, actor);
        ArrayNode pauses = out.putArray("pauses");
        for (Pause p : control.pauses(actor)) {
            pauses.add(ControlJson.pause(p));
        }
        if (partner) {
            return out;
        }
        out.put("requests_per_minute", m.requests);
        GovernorSnapshot snap = runtime.governor().snapshot();
        Map<String, AdaptiveSnapshot> adaptive = new HashMap<>();
        runtime.adaptive().ifPresent(a -> a.snapshots().forEach(s -> adaptive.put(s.deployment(), s)));
        profiles(out.putArray("profiles"), m, control);
        bottlenecks(out.putArray("bottlenecks"), m);
        estimates(out.putArray("estimates"), m);
        retryAfter(out.putObject("retry_after"), m);
        cacheReads(out.putArray("cache_reads"), m, control);
        borrowing(out.putObject("borrowing"), m, snap);
        deployments(out.putArray("deployments"), m, control, snap, adaptive);
        RolloutPanel.rollouts(out.putArray("rollouts"), runtime);
        RolloutPanel.warmups(out.putArray("warmups"), runtime);
        return out;
    }

    /** Question 1: who consumes the most requests, input and output tokens (sorted by requests). */
    private static void tenants(ArrayNode out, LastMinute.Counts m, ControlPlane control, Actor actor) {
        List<Map.Entry<String, long[]>> rows = new ArrayList<>(m.tenants.entrySet());
        rows.removeIf(e -> !control.mayRead(actor, Scope.of(ScopeLevel.TENANT, e.getKey())));
        rows.sort(Comparator.<Map.Entry<String, long[]>>comparingLong(e -> -e.getValue()[LastMinute.T_REQUESTS])
                .thenComparing(Map.Entry::getKey));
        for (var e : rows) {
            long[] a = e.getValue();
            out.addObject().put("tenant", e.getKey()).put("rpm", a[LastMinute.T_REQUESTS])
                    .put("input_tpm", a[LastMinute.T_INPUT]).put("output_tpm", a[LastMinute.T_OUTPUT])
                    .put("cache_read_tpm", a[LastMinute.T_CACHE_READ]).put("rejected", a[LastMinute.T_REJECTED]);
        }
    }

    /**
     * Money against the caps: every scope the actor may read that has a {@code daily_cost} or
     * {@code monthly_cost} cap, with what it spent today and this month (from its bucket, so what
     * is reserved by requests in flight counts), in dollars.
     */
    private static void spend(ArrayNode out, ControlPlane control, Actor actor) {
        dev.sluice.runtime.config.SluiceConfig c = control.config();
        List<Map.Entry<Scope, dev.sluice.limits.Limits>> capped = new ArrayList<>();
        c.orgs().forEach((id, o) -> {
            capped.add(Map.entry(Scope.of(ScopeLevel.ORGANISATION, id), o.limits()));
            o.tenants().forEach((tid, t) -> {
                capped.add(Map.entry(Scope.of(ScopeLevel.TENANT, tid), t.limits()));
                t.teams().forEach((name, team) -> {
                    capped.add(Map.entry(Scope.of(ScopeLevel.TEAM, tid + "/" + name), team.limits()));
                    team.keys().forEach((kid, k) -> capped.add(Map.entry(Scope.of(ScopeLevel.API_KEY, kid), k.limits())));
                });
            });
        });
        for (var e : capped) {
            var daily = e.getValue().get(dev.sluice.limits.Dimension.DAILY_COST);
            var monthly = e.getValue().get(dev.sluice.limits.Dimension.MONTHLY_COST);
            if (daily.isEmpty() && monthly.isEmpty() || !control.mayRead(actor, e.getKey())) {
                continue;
            }
            var bucket = control.runtime().governor().bucket(e.getKey());
            ObjectNode n = out.addObject().put("scope", e.getKey().key());
            for (var cap : List.of(Map.entry("today", daily), Map.entry("month", monthly))) {
                cap.getValue().ifPresent(l -> {
                    double spent = bucket.flatMap(b -> b.of(l.dimension()))
                            .map(d -> Math.max(0, d.capacity() - d.available())).orElse(0.0);
                    n.putObject(cap.getKey()).put("spent_usd", spent / dev.sluice.limits.Dimension.MICROS_PER_USD)
                            .put("cap_usd", (double) l.amount() / dev.sluice.limits.Dimension.MICROS_PER_USD);
                });
            }
        }
    }

    /** Question 2: which profiles queue, reject or fall back. Every configured profile, at zero when idle. */
    private static void profiles(ArrayNode out, LastMinute.Counts m, ControlPlane control) {
        for (ProfileConfig p : new TreeMap<>(control.config().profiles()).values()) {
            long[] a = m.profiles.getOrDefault(p.id(), new long[11]);
            out.addObject().put("profile", p.id()).put("deployment", p.deployment())
                    .put("requests", a[LastMinute.P_REQUESTS]).put("admitted", a[LastMinute.P_ADMITTED])
                    .put("queued", a[LastMinute.P_QUEUED]).put("rejected", a[LastMinute.P_REJECTED])
                    .put("fallbacks", a[LastMinute.P_FALLBACKS]);
        }
    }

    /** Question 3: which bucket and dimension decided the refusals and waits, most first. */
    private static void bottlenecks(ArrayNode out, LastMinute.Counts m) {
        List<Map.Entry<LastMinute.Decision, long[]>> rows = new ArrayList<>(m.decisions.entrySet());
        rows.sort(Comparator.<Map.Entry<LastMinute.Decision, long[]>>comparingLong(
                e -> -(e.getValue()[LastMinute.D_REJECTED] + e.getValue()[LastMinute.D_QUEUED]))
                .thenComparing(e -> e.getKey().scope()).thenComparing(e -> e.getKey().limiter()));
        for (var e : rows) {
            int colon = e.getKey().scope().indexOf(':');
            out.addObject().put("scope", e.getKey().scope())
                    .put("scope_level", colon < 0 ? e.getKey().scope() : e.getKey().scope().substring(0, colon))
                    .put("limiter", e.getKey().limiter()).put("rejected", e.getValue()[LastMinute.D_REJECTED])
                    .put("queued", e.getValue()[LastMinute.D_QUEUED]);
        }
    }

    /** Question 4: the estimate against what the provider reported, per profile. */
    private static void estimates(ArrayNode out, LastMinute.Counts m) {
        for (var e : new TreeMap<>(m.profiles).entrySet()) {
            long[] a = e.getValue();
            if (a[LastMinute.P_COMPARED] == 0) {
                continue;
            }
            ObjectNode n = out.addObject().put("profile", e.getKey()).put("compared", a[LastMinute.P_COMPARED])
                    .put("estimated_input", a[LastMinute.P_EST_INPUT]).put("actual_input", a[LastMinute.P_USED_INPUT])
                    .put("estimated_output", a[LastMinute.P_EST_OUTPUT])
                    .put("actual_output", a[LastMinute.P_USED_OUTPUT])
                    .put("input_off_by_25_percent", a[LastMinute.P_OFF_BY_25]);
            ratio(n, "input_ratio", a[LastMinute.P_USED_INPUT], a[LastMinute.P_EST_INPUT]);
            ratio(n, "output_ratio", a[LastMinute.P_USED_OUTPUT], a[LastMinute.P_EST_OUTPUT]);
        }
    }

    /** Question 5: provider retry-after hints by provider, deployment and the limit the provider named. */
    private static void retryAfter(ObjectNode out, LastMinute.Counts m) {
        ArrayNode bounds = out.putArray("bounds_ms");
        for (long b : LastMinute.RETRY_AFTER_BOUNDS_MS) {
            bounds.add(b);
        }
        ArrayNode series = out.putArray("series");
        List<Map.Entry<LastMinute.Throttle, long[]>> rows = new ArrayList<>(m.throttles.entrySet());
        rows.sort(Comparator.comparing((Map.Entry<LastMinute.Throttle, long[]> e) -> e.getKey().provider())
                .thenComparing(e -> e.getKey().deployment()).thenComparing(e -> e.getKey().limiter()));
        for (var e : rows) {
            long[] h = e.getValue();
            ObjectNode n = series.addObject().put("provider", e.getKey().provider())
                    .put("deployment", e.getKey().deployment()).put("limiter", e.getKey().limiter());
            ArrayNode counts = n.putArray("counts");
            long total = 0;
            for (int i = 0; i <= LastMinute.RETRY_AFTER_BOUNDS_MS.length; i++) {
                counts.add(h[i]);
                total += h[i];
            }
            n.put("no_hint", h[LastMinute.RETRY_AFTER_BOUNDS_MS.length + 1]);
            n.put("total", total + h[LastMinute.RETRY_AFTER_BOUNDS_MS.length + 1]);
        }
    }

    /**
     * Question 6: prompt tokens read from the provider's cache per deployment; those its input limit
     * does not count are headroom, shown against the deployment's input limit.
     */
    private static void cacheReads(ArrayNode out, LastMinute.Counts m, ControlPlane control) {
        for (DeploymentConfig d : new TreeMap<>(control.config().deployments()).values()) {
            long[] a = m.deployments.getOrDefault(d.id(), new long[5]);
            ObjectNode n = out.addObject().put("deployment", d.id())
                    .put("uncounted_per_minute", a[LastMinute.DEP_CACHE_UNCOUNTED])
                    .put("counted_per_minute", a[LastMinute.DEP_CACHE_COUNTED])
                    .put("input_per_minute", a[LastMinute.DEP_INPUT]);
            Optional<Limit> input = d.limits().get(Dimension.INPUT_TOKENS).or(() -> d.limits().get(Dimension.TOTAL_TOKENS));
            input.ifPresent(l -> n.put("input_limit_per_minute", l.amount()).put("headroom_fraction",
                    l.amount() == 0 ? 0 : (double) a[LastMinute.DEP_CACHE_UNCOUNTED] / l.amount()));
        }
    }

    /**
     * Question 7: borrowing. Per class, the requests admitted beyond their tenant's share (as the
     * request events say); per deployment and tenant, what the governor's shares say is borrowed now.
     */
    private static void borrowing(ObjectNode out, LastMinute.Counts m, GovernorSnapshot snap) {
        ArrayNode classes = out.putArray("classes");
        Map<String, long[]> byClass = new TreeMap<>();
        m.classes.forEach((k, v) -> {
            long[] a = byClass.computeIfAbsent(k.trafficClass(), x -> new long[2]);
            a[0] += v[LastMinute.C_REQUESTS];
            a[1] += v[LastMinute.C_BORROWED];
        });
        byClass.forEach((c, a) -> classes.addObject().put("class", c).put("requests", a[0]).put("borrowed", a[1]));
        ArrayNode tenants = out.putArray("tenants");
        for (GovernorSnapshot.LaneSnapshot lane : snap.lanes()) {
            for (GovernorSnapshot.ShareSnapshot s : lane.shares()) {
                ObjectNode n = tenants.addObject().put("deployment", lane.deployment()).put("tenant", s.tenant())
                        .put("weight", s.weight());
                n.set("borrowed_per_minute", perDimension(s.borrowedPerMinute()));
                n.set("guaranteed_per_minute", perDimension(s.guaranteedPerMinute()));
                n.set("used_per_minute", perDimension(s.usedPerMinute()));
            }
        }
    }

    /** Per deployment: mode, multipliers, ramp, buckets against capacity, queues and waits by class, 429s, pauses. */
    private static void deployments(ArrayNode out, LastMinute.Counts m, ControlPlane control, GovernorSnapshot snap,
            Map<String, AdaptiveSnapshot> adaptive) {
        Map<String, BucketState> buckets = new HashMap<>();
        for (BucketState b : snap.buckets()) {
            buckets.put(b.key(), b);
        }
        Map<String, GovernorSnapshot.LaneSnapshot> lanes = new HashMap<>();
        snap.lanes().forEach(l -> lanes.put(l.deployment(), l));
        long now = control.runtime().clock().epochMillis();
        for (DeploymentConfig d : new TreeMap<>(control.config().deployments()).values()) {
            ObjectNode n = out.addObject().put("deployment", d.id()).put("provider", d.kind().wireName());
            AdaptiveSnapshot a = adaptive.get(d.id());
            if (a != null) {
                n.put("mode", a.mode().wireName()).put("ramp_stage", a.rampStage()).put("ramp_fraction", a.rampFraction());
                n.set("multipliers", perDimension(a.multipliers()));
                ObjectNode cool = n.putObject("cooldown_ms");
                a.pausedForNanos().forEach((dim, ns) -> cool.put(dim.limiterName(), ns / 1_000_000));
            } else {
                n.put("mode", "off");
            }
            ArrayNode bs = n.putArray("buckets");
            Optional.ofNullable(buckets.get(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d.id()).key())).ifPresent(b -> {
                for (BucketState.DimensionState s : b.dimensions()) {
                    bs.addObject().put("dimension", s.dimension().limiterName())
                            .put("available", (long) Math.floor(s.available())).put("capacity", s.capacity())
                            .put("in_flight", s.open()).put("rate_factor", s.rateFactor())
                            .put("paused_ms", s.pausedForNanos() / 1_000_000);
                }
            });
            ArrayNode classes = n.putArray("classes");
            GovernorSnapshot.LaneSnapshot lane = lanes.get(d.id());
            for (TrafficClass c : TrafficClass.inOrder()) {
                long[] w = m.classes.getOrDefault(new LastMinute.ClassAt(d.id(), c.wireName()), new long[6]);
                int depth = lane == null ? 0 : lane.queued().getOrDefault(c, 0);
                if (depth == 0 && w[LastMinute.C_REQUESTS] == 0) {
                    continue;
                }
                classes.addObject().put("class", c.wireName()).put("queue_depth", depth)
                        .put("requests", w[LastMinute.C_REQUESTS]).put("queued", w[LastMinute.C_QUEUED])
                        .put("rejected", w[LastMinute.C_REJECTED])
                        .put("mean_wait_ms", w[LastMinute.C_QUEUED] == 0 ? 0
                                : w[LastMinute.C_WAIT_NANOS] / w[LastMinute.C_QUEUED] / 1_000_000)
                        .put("max_wait_ms", w[LastMinute.C_WAIT_MAX_NANOS] / 1_000_000);
            }
            long[] dep = m.deployments.getOrDefault(d.id(), new long[5]);
            n.put("attempts", dep[LastMinute.DEP_ATTEMPTS]).put("provider_429s", dep[LastMinute.DEP_THROTTLED]);
            control.runtime().pauses().of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d.id()), now)
                    .ifPresentOrElse(p -> n.set("paused", ControlJson.pause(p)), () -> n.putNull("paused"));
        }
    }

    private static ObjectNode perDimension(Map<Dimension, Double> values) {
        ObjectNode n = JSON.createObjectNode();
        new TreeMap<>(values).forEach((d, v) -> n.put(d.limiterName(), Math.round(v * 1000) / 1000.0));
        return n;
    }

    private static void ratio(ObjectNode n, String field, long actual, long estimated) {
        if (estimated > 0) {
            n.put(field, Math.round(actual * 1000.0 / estimated) / 1000.0);
        } else {
            n.putNull(field);
        }
    }
}
