package dev.sluice.runtime.rollout;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.routing.FallbackPolicy;
import dev.sluice.runtime.routing.Headroom;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A runtime's rollouts: which side each first attempt of a profile in rollout runs on, the
 * target's figures (it is a {@link RequestEventSink}), the analysis at each interval's end (on
 * the runtime's {@link #tick}), and the operators' commands. Every decision this runtime makes
 * goes to the listeners ({@link #onDecision}) with the state it leaves; a state kept in the
 * journal (before a restart, or by another replica) is taken back by {@link #restore}. The set of
 * rollouts follows the configuration in force ({@link #reconcile}): the admin API adds and removes
 * them. Each rollout is guarded by its own lock: only requests of a profile in rollout, and events
 * of a target, take it.
 */
public final class Rollouts implements RequestEventSink {

    /** Reads what a target deployment can take now: its mode, ramp and limits. */
    @FunctionalInterface
    public interface TargetStates {
        RolloutAnalysis.TargetState of(String deployment);
    }

    /** The rollouts in force, swapped whole by {@link #reconcile}: a request reads one consistent set. */
    private record InForce(Map<String, Entry> byId, Map<String, Entry> byProfile, Entry[] all,
            Map<String, Optional<String>> tenantRegions) {}

    /**
     * One rollout's interval so far on this replica, for the fleet to add up ({@link RolloutFleet}).
     *
     * @param id the rollout
     * @param version the version of the state in force: the interval that began with that decision
     * @param tally what this replica counted on the target since
     * @param demand the profile's first attempts on this replica in the last minute
     */
    public record Published(String id, long version, IntervalTally tally, RolloutAnalysis.Demand demand) {
        public Published {
            java.util.Objects.requireNonNull(id, "id");
            java.util.Objects.requireNonNull(tally, "tally");
            java.util.Objects.requireNonNull(demand, "demand");
        }
    }

    /**
     * What one replica sent to a rollout's target, for the fleet's growth ceiling ({@link RolloutFleet}).
     *
     * @param id the rollout
     * @param minute the epoch minute in progress (wall time) when it was counted
     * @param thisMinute the target's first attempts in that minute so far
     * @param minuteBefore in the minute before
     */
    public record Sent(String id, long minute, RolloutAnalysis.Demand thisMinute, RolloutAnalysis.Demand minuteBefore) {
        public Sent {
            java.util.Objects.requireNonNull(id, "id");
            java.util.Objects.requireNonNull(thisMinute, "thisMinute");
            java.util.Objects.requireNonNull(minuteBefore, "minuteBefore");
        }
    }

    /** A state kept in the journal for a rollout this runtime does not hold yet, with its decision. */
    private record Kept(RolloutState state, RolloutDecision decision) {}

    private final NanoClock clock;
    private final TargetStates targets;
    private volatile InForce inForce;
    /** States restored before their rollout was in force (a rollout created through the API, at start), by version. */
    private final Map<String, TreeMap<Long, Kept>> pending = new HashMap<>();
    private final List<Consumer<RolloutDecision>> listeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<RolloutDecision, RolloutState>> made = new CopyOnWriteArrayList<>();
    /** Whether the fleet's figures are judged ({@link #judgeFleet}) instead of this replica's on its tick. */
    private volatile boolean judgedByFleet;

    public Rollouts(SluiceConfig config, NanoClock clock, TargetStates targets) {
        this.clock = clock;
        this.targets = targets;
        this.inForce = build(config, Map.of());
    }

    /** Starts the rollouts the file starts at once ({@code start: immediately}). */
    public void startConfigured() {
        for (Entry e : inForce.all) {
            if (e.rollout.config().startsAtOnce() && e.rollout.status() == Rollout.Status.PENDING) {
                command(e.rollout.config().id(), r -> r.start(clock.nanos(), clock.epochMillis(), "config"));
            }
        }
    }

    /**
     * Puts in force the rollouts of {@code config}: one it names that is not running is added
     * (pending, or where a state restored for it puts it); one it no longer names is removed, its
     * profile's requests routed by the profile again; one whose definition is unchanged keeps its
     * stage and meters.
     */
    public synchronized void reconcile(SluiceConfig config) {
        InForce next = build(config, inForce.byId);
        for (Entry e : next.all) {
            TreeMap<Long, Kept> kept = pending.remove(e.rollout.config().id());
            if (kept != null) {
                synchronized (e) {
                    kept.values().forEach(k -> e.rollout.restore(k.state, k.decision, clock.nanos(), clock.epochMillis()));
                }
            }
        }
        inForce = next;
    }

    private InForce build(SluiceConfig config, Map<String, Entry> running) {
        Map<String, Entry> byId = new LinkedHashMap<>();
        Map<String, Entry> byProfile = new HashMap<>();
        for (RolloutConfig r : config.rollouts()) {
            Entry old = running.get(r.id());
            Entry e = old != null && old.rollout.config().equals(r) ? old
                    : new Entry(new Rollout(r), config.deployments().get(r.from()), config.deployments().get(r.to()));
            byId.put(r.id(), e);
            byProfile.put(r.profile(), e);
        }
        Map<String, Optional<String>> regions = new HashMap<>();
        config.orgs().values().forEach(o -> o.tenants().values().forEach(
                (TenantConfig t) -> regions.put(t.id(), t.region())));
        return new InForce(Map.copyOf(byId), Map.copyOf(byProfile), byId.values().toArray(Entry[]::new),
                Map.copyOf(regions));
    }

    /**
     * Takes the state {@code decision} left on rollout {@code id} (read back from the journal: kept
     * before a restart, or made by another replica) when it is later than the one in force; held
     * until the rollout is in force when it is not yet. The decision joins the rollout's history;
     * the listeners are not told (it was told where it was made).
     */
    public synchronized void restore(String id, RolloutState state, RolloutDecision decision) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            pending.computeIfAbsent(id, k -> new TreeMap<>()).put(state.version(), new Kept(state, decision));
            return;
        }
        synchronized (e) {
            if (e.rollout.restore(state, decision, clock.nanos(), clock.epochMillis())) {
                // The interval restarts from the decision: what this replica measured belongs to the one before.
                e.meter.drain();
            }
        }
    }

    /** Drops what was restored for rollout {@code id} before it was in force: it was deleted. */
    public synchronized void forget(String id) {
        pending.remove(id);
    }

    /** Calls {@code listener} with every decision this runtime makes, on the thread that made it. */
    public void onDecision(Consumer<RolloutDecision> listener) {
        listeners.add(listener);
    }

    /**
     * Calls {@code listener} with every decision this runtime makes and the state it leaves, on the
     * thread that made it: what the journal keeps ({@link #restore} reads it back).
     */
    public void onStateChange(BiConsumer<RolloutDecision, RolloutState> listener) {
        made.add(listener);
    }

    /**
     * The target of the rollout of {@code plan}'s profile, when this first attempt runs there:
     * its sticky key is assigned to the target at the stage in force, the profile's policy allows
     * the request there, the target has headroom, and the step's share and the growth ceiling
     * have room for it ({@link ShareMeter}). Every first attempt of the profile is counted.
     */
    Optional<DeploymentConfig> targetFor(RequestPlan plan, Headroom headroom) {
        InForce now = inForce;
        Entry e = now.byProfile.get(plan.profile().id());
        if (e == null) {
            return Optional.empty();
        }
        RolloutConfig c = e.rollout.config();
        String tenant = plan.caller().tenant();
        boolean listed = c.tenantsFirst().contains(tenant);
        String key = c.sticky() == RolloutConfig.Sticky.TENANT ? tenant : plan.caller().apiKeyId();
        int slot = RolloutAssignment.slot(c.id(), key);
        long in = plan.estimate().inputTokens();
        long out = plan.estimate().outputTokens();
        synchronized (e) {
            RolloutAssignment.Stage stage = e.rollout.inForce();
            boolean assigned = RolloutAssignment.onTarget(stage, listed, slot)
                    && RolloutCompatibility.judge(plan, now.tenantRegions.getOrDefault(tenant, Optional.empty()),
                            plan.profile(), e.from, e.to) instanceof FallbackPolicy.Verdict.Allowed
                    && headroom.has(e.to.id());
            return e.share.take(wallNanos(), assigned, stage.percentFor(listed), in, out)
                    ? Optional.of(e.to) : Optional.empty();
        }
    }

    /**
     * The target to send a shadow copy of {@code plan} to, when its profile's rollout has a shadow
     * phase: the rollout is pending or running (not complete, rolled back or paused), the request
     * runs on the source ({@code ranOn}), the profile's policy allows it on the target, and its
     * trace id falls in the sample.
     */
    public Optional<DeploymentConfig> shadowFor(RequestPlan plan, String ranOn) {
        InForce now = inForce;
        Entry e = now.byProfile.get(plan.profile().id());
        if (e == null || e.rollout.config().shadowSample() <= 0 || !ranOn.equals(e.from.id())) {
            return Optional.empty();
        }
        Rollout.Status status;
        synchronized (e) {
            status = e.rollout.status();
        }
        if (status != Rollout.Status.PENDING && status != Rollout.Status.RUNNING) {
            return Optional.empty();
        }
        int slot = RolloutAssignment.slot(e.rollout.config().id() + ":shadow", plan.traceId());
        if (slot >= Math.round(e.rollout.config().shadowSample() * RolloutAssignment.SLOTS)) {
            return Optional.empty();
        }
        String tenant = plan.caller().tenant();
        return RolloutCompatibility.judge(plan, now.tenantRegions.getOrDefault(tenant, Optional.empty()), plan.profile(),
                e.from, e.to) instanceof FallbackPolicy.Verdict.Allowed ? Optional.of(e.to) : Optional.empty();
    }

    /**
     * A shadow copy's attempt on {@code deployment} ended with {@code result} after
     * {@code latencyNanos}: it counts in the target's figures as any attempt there (it has no
     * request of its own, nor usage to compare with its estimate).
     */
    public void onShadow(String deployment, dev.sluice.runtime.event.AttemptResult result, long latencyNanos) {
        for (Entry e : inForce.all) {
            if (e.to.id().equals(deployment)) {
                synchronized (e) {
                    e.meter.onShadow(result, latencyNanos);
                }
            }
        }
    }

    /** The source of the rollout of {@code profile} after an attempt on its target, if it has one. */
    Optional<DeploymentConfig> sourceAfterTarget(String profile, List<String> tried) {
        Entry e = inForce.byProfile.get(profile);
        if (e == null || !tried.contains(e.to.id()) || tried.contains(e.from.id())) {
            return Optional.empty();
        }
        return Optional.of(e.from);
    }

    @Override
    public void onAttempt(AttemptEvent event) {
        for (Entry e : inForce.all) {
            if (e.to.id().equals(event.deployment())) {
                synchronized (e) {
                    e.meter.onAttempt(event);
                }
            }
        }
    }

    @Override
    public void onRequest(RequestEvent event) {
        for (Entry e : inForce.all) {
            synchronized (e) {
                e.meter.onRequest(event);
            }
        }
    }

    /**
     * Judges every rollout whose interval has ended or already breached. Called on the runtime's
     * tick; does nothing while the fleet's figures are judged instead ({@link #judgedByFleet}).
     */
    public void tick() {
        if (judgedByFleet) {
            return;
        }
        long now = clock.nanos();
        for (Entry e : inForce.all) {
            RolloutDecision d;
            RolloutState after;
            synchronized (e) {
                if (!e.rollout.intervalDue(now) && !e.rollout.breachedEarly(e.meter.peek())) {
                    continue;
                }
                RolloutAnalysis.Demand demand = e.demand(wallNanos());
                RolloutAnalysis.TargetState state = targets.of(e.to.id());
                d = e.rollout.onInterval(now, clock.epochMillis(), e.meter.drain(),
                        percent -> RolloutAnalysis.noRoom(e.to.id(), state, demand, percent));
                after = e.rollout.state();
            }
            tell(d, after);
        }
    }

    /**
     * Whether the analysis judges the figures of every replica sharing the store
     * ({@link #judgeFleet}, called by the replica that decides) rather than this replica's own on
     * its tick. Commands are not affected.
     */
    public void judgedByFleet(boolean fleet) {
        this.judgedByFleet = fleet;
    }

    /** The interval so far of each running or paused rollout on this replica: what it publishes to the fleet. */
    public List<Published> published() {
        long wall = wallNanos();
        List<Published> out = new ArrayList<>();
        for (Entry e : inForce.all) {
            synchronized (e) {
                Rollout.Status s = e.rollout.status();
                if (s == Rollout.Status.RUNNING || s == Rollout.Status.PAUSED) {
                    out.add(new Published(e.rollout.config().id(), e.rollout.state().version(), e.meter.tally(),
                            e.demand(wall)));
                }
            }
        }
        return out;
    }

    /**
     * What this replica sent this minute and the one before to the target of each rollout with a
     * growth ceiling, whatever its status (a complete rollout's target still has one); none that
     * sent nothing in either. The other replicas' ceilings count it ({@link #sentByOthers}).
     */
    public List<Sent> sent() {
        long wall = wallNanos();
        List<Sent> out = new ArrayList<>();
        for (Entry e : inForce.all) {
            if (e.rollout.config().maxGrowthPerMinute().isEmpty()) {
                continue;
            }
            long[] s;
            synchronized (e) {
                s = e.share.sent(wall);
            }
            if (s[1] + s[2] + s[3] + s[4] + s[5] + s[6] > 0) {
                out.add(new Sent(e.rollout.config().id(), s[0], new RolloutAnalysis.Demand(s[1], s[2], s[3]),
                        new RolloutAnalysis.Demand(s[4], s[5], s[6])));
            }
        }
        return out;
    }

    /**
     * Takes what the other replicas sharing the store last said they sent to the rollouts'
     * targets ({@link #sent} on each), in place of what they said before: each rollout's growth
     * ceiling counts the fleet's sends from now, the other replicas' as of their publication and
     * this one's as they happen. A rollout none of them names has only this replica's.
     */
    public void sentByOthers(java.util.Collection<Sent> others) {
        Map<String, List<long[]>> byId = new HashMap<>();
        for (Sent s : others) {
            byId.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(new long[] {s.minute(),
                s.thisMinute().requests(), s.thisMinute().inputTokens(), s.thisMinute().outputTokens(),
                s.minuteBefore().requests(), s.minuteBefore().inputTokens(), s.minuteBefore().outputTokens()});
        }
        for (Entry e : inForce.all) {
            List<long[]> theirs = byId.getOrDefault(e.rollout.config().id(), List.of());
            synchronized (e) {
                e.share.others(theirs);
            }
        }
    }

    /** Wall time in nanoseconds: the minutes of the share and the ceiling are the epoch's, the same on every replica. */
    private long wallNanos() {
        return clock.epochMillis() * 1_000_000L;
    }

    /**
     * Judges rollout {@code id} on the fleet's figures of the interval that began with state
     * {@code version}, when that interval has ended or the figures already breach a threshold:
     * the decision is this runtime's (told to the listeners, journaled), and this replica's own
     * meter starts the next interval. Nothing happens when the rollout is unknown here, or has
     * moved past {@code version} since the figures were read.
     *
     * @param fleet every replica's tally of that interval, added up
     * @param demand the profile's first attempts of every replica in the last minute, added up
     */
    public Optional<RolloutDecision> judgeFleet(String id, long version, IntervalTally fleet,
            RolloutAnalysis.Demand demand) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            return Optional.empty();
        }
        long now = clock.nanos();
        RolloutDecision d;
        RolloutState after;
        synchronized (e) {
            IntervalFigures figures = fleet.figures();
            if (e.rollout.state().version() != version
                    || (!e.rollout.intervalDue(now) && !e.rollout.breachedEarly(figures))) {
                return Optional.empty();
            }
            RolloutAnalysis.TargetState state = targets.of(e.to.id());
            d = e.rollout.onInterval(now, clock.epochMillis(), figures,
                    percent -> RolloutAnalysis.noRoom(e.to.id(), state, demand, percent));
            after = e.rollout.state();
            e.meter.drain();
        }
        tell(d, after);
        return Optional.of(d);
    }

    /** Starts rollout {@code id}. @throws NoSuchElementException for an unknown one, IllegalStateException when it cannot */
    public RolloutDecision start(String id, String by) {
        return command(id, r -> r.start(clock.nanos(), clock.epochMillis(), by));
    }

    /** Holds rollout {@code id}'s share until it is resumed. */
    public RolloutDecision pause(String id, String by) {
        return command(id, r -> r.pause(clock.epochMillis(), by));
    }

    public RolloutDecision resume(String id, String by) {
        return command(id, r -> r.resume(clock.nanos(), clock.epochMillis(), by));
    }

    /** Moves rollout {@code id} one stage up at once. */
    public RolloutDecision advance(String id, String by) {
        return command(id, r -> r.advance(clock.nanos(), clock.epochMillis(), by));
    }

    /** The emergency rollback: every request of the profile returns to the source at once. */
    public RolloutDecision rollback(String id, String by, String reason) {
        return command(id, r -> r.rollback(clock.epochMillis(), by, reason));
    }

    /** What each rollout is doing now, in the file's order. */
    public List<RolloutView> inspect() {
        List<RolloutView> out = new ArrayList<>();
        for (Entry e : inForce.all) {
            synchronized (e) {
                out.add(RolloutView.of(e.rollout));
            }
        }
        return out;
    }

    /** The target's share in force in rollout {@code id}, of tenants not listed first; empty for an unknown one. */
    public java.util.OptionalDouble percent(String id) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            return java.util.OptionalDouble.empty();
        }
        synchronized (e) {
            return java.util.OptionalDouble.of(e.rollout.inForce().percent());
        }
    }

    /**
     * The figures of rollout {@code id}'s latest analysis decision (made here or restored from
     * another replica's); empty for an unknown rollout or before its first.
     */
    public Optional<IntervalFigures> lastFigures(String id) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            return Optional.empty();
        }
        synchronized (e) {
            return e.rollout.lastFigures();
        }
    }

    /** Rollout {@code id} now. @throws NoSuchElementException for an unknown one */
    public RolloutView inspect(String id) {
        Entry e = entry(id);
        synchronized (e) {
            return RolloutView.of(e.rollout);
        }
    }

    private RolloutDecision command(String id, Function<Rollout, RolloutDecision> c) {
        Entry e = entry(id);
        RolloutDecision d;
        RolloutState after;
        synchronized (e) {
            d = c.apply(e.rollout);
            after = e.rollout.state();
        }
        tell(d, after);
        return d;
    }

    private Entry entry(String id) {
        Map<String, Entry> byId = inForce.byId;
        Entry e = byId.get(id);
        if (e == null) {
            throw new NoSuchElementException("rollout: \"" + id + "\" (expected: one of "
                    + new java.util.TreeSet<>(byId.keySet()) + ")");
        }
        return e;
    }

    private void tell(RolloutDecision d, RolloutState after) {
        for (Consumer<RolloutDecision> l : listeners) {
            try {
                l.accept(d);
            } catch (RuntimeException ex) {
                // a listener's failure must not stop the rollout or the other listeners
            }
        }
        for (BiConsumer<RolloutDecision, RolloutState> l : made) {
            try {
                l.accept(d, after);
            } catch (RuntimeException ex) {
                // the journal's failure must not stop the rollout: the state is in force here
            }
        }
    }

    /** One rollout with its meters. */
    private static final class Entry {
        final Rollout rollout;
        final DeploymentConfig from;
        final DeploymentConfig to;
        final ShareMeter share;
        final IntervalMeter meter;

        Entry(Rollout rollout, DeploymentConfig from, DeploymentConfig to) {
            this.rollout = rollout;
            this.from = from;
            this.to = to;
            this.share = new ShareMeter(rollout.config().maxGrowthPerMinute());
            this.meter = new IntervalMeter(to.id());
        }

        RolloutAnalysis.Demand demand(long now) {
            long[] d = share.profileLastMinute(now);
            return new RolloutAnalysis.Demand(d[0], d[1], d[2]);
        }
    }
}
