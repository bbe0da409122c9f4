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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A runtime's rollouts: which side each first attempt of a profile in rollout runs on, the
 * target's figures (it is a {@link RequestEventSink}), the analysis at each interval's end (on
 * the runtime's {@link #tick}), and the operators' commands. Every decision goes to the
 * listeners ({@link #onDecision}). Each rollout is guarded by its own lock: only requests of a
 * profile in rollout, and events of a target, take it.
 */
public final class Rollouts implements RequestEventSink {

    /** Reads what a target deployment can take now: its mode, ramp and limits. */
    @FunctionalInterface
    public interface TargetStates {
        RolloutAnalysis.TargetState of(String deployment);
    }

    private final NanoClock clock;
    private final TargetStates targets;
    private final Map<String, Entry> byId = new LinkedHashMap<>();
    private final Map<String, Entry> byProfile = new HashMap<>();
    private final Entry[] all;
    private final Map<String, Optional<String>> tenantRegions = new HashMap<>();
    private final List<Consumer<RolloutDecision>> listeners = new CopyOnWriteArrayList<>();

    public Rollouts(SluiceConfig config, NanoClock clock, TargetStates targets) {
        this.clock = clock;
        this.targets = targets;
        for (RolloutConfig r : config.rollouts()) {
            Entry e = new Entry(new Rollout(r), config.deployments().get(r.from()), config.deployments().get(r.to()));
            byId.put(r.id(), e);
            byProfile.put(r.profile(), e);
        }
        this.all = byId.values().toArray(Entry[]::new);
        config.orgs().values().forEach(o -> o.tenants().values().forEach(
                (TenantConfig t) -> tenantRegions.put(t.id(), t.region())));
    }

    /** Starts the rollouts the file starts at once ({@code start: immediately}). */
    public void startConfigured() {
        for (Entry e : all) {
            if (e.rollout.config().startsAtOnce()) {
                command(e.rollout.config().id(), r -> r.start(clock.nanos(), clock.epochMillis(), "config"));
            }
        }
    }

    /** Calls {@code listener} with every decision, on the thread that made it. */
    public void onDecision(Consumer<RolloutDecision> listener) {
        listeners.add(listener);
    }

    /**
     * The target of the rollout of {@code plan}'s profile, when this first attempt runs there:
     * its sticky key is assigned to the target at the stage in force, the profile's policy allows
     * the request there, the target has headroom, and the step's share and the growth ceiling
     * have room for it ({@link ShareMeter}). Every first attempt of the profile is counted.
     */
    Optional<DeploymentConfig> targetFor(RequestPlan plan, Headroom headroom) {
        Entry e = byProfile.get(plan.profile().id());
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
                    && RolloutCompatibility.judge(plan, tenantRegions.getOrDefault(tenant, Optional.empty()),
                            plan.profile(), e.from, e.to) instanceof FallbackPolicy.Verdict.Allowed
                    && headroom.has(e.to.id());
            return e.share.take(clock.nanos(), assigned, stage.percentFor(listed), in, out)
                    ? Optional.of(e.to) : Optional.empty();
        }
    }

    /** The source of the rollout of {@code profile} after an attempt on its target, if it has one. */
    Optional<DeploymentConfig> sourceAfterTarget(String profile, List<String> tried) {
        Entry e = byProfile.get(profile);
        if (e == null || !tried.contains(e.to.id()) || tried.contains(e.from.id())) {
            return Optional.empty();
        }
        return Optional.of(e.from);
    }

    @Override
    public void onAttempt(AttemptEvent event) {
        for (Entry e : all) {
            if (e.to.id().equals(event.deployment())) {
                synchronized (e) {
                    e.meter.onAttempt(event);
                }
            }
        }
    }

    @Override
    public void onRequest(RequestEvent event) {
        for (Entry e : all) {
            synchronized (e) {
                e.meter.onRequest(event);
            }
        }
    }

    /** Judges every rollout whose interval has ended or already breached. Called on the runtime's tick. */
    public void tick() {
        long now = clock.nanos();
        for (Entry e : all) {
            RolloutDecision d;
            synchronized (e) {
                if (!e.rollout.intervalDue(now) && !e.rollout.breachedEarly(e.meter.peek())) {
                    continue;
                }
                RolloutAnalysis.Demand demand = e.demand(now);
                RolloutAnalysis.TargetState state = targets.of(e.to.id());
                d = e.rollout.onInterval(now, clock.epochMillis(), e.meter.drain(),
                        percent -> RolloutAnalysis.noRoom(e.to.id(), state, demand, percent));
            }
            tell(d);
        }
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
        for (Entry e : all) {
            synchronized (e) {
                out.add(RolloutView.of(e.rollout));
            }
        }
        return out;
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
        synchronized (e) {
            d = c.apply(e.rollout);
        }
        tell(d);
        return d;
    }

    private Entry entry(String id) {
        Entry e = byId.get(id);
        if (e == null) {
            throw new NoSuchElementException("rollout: \"" + id + "\" (expected: one of " + byId.keySet() + ")");
        }
        return e;
    }

    private void tell(RolloutDecision d) {
        for (Consumer<RolloutDecision> l : listeners) {
            try {
                l.accept(d);
            } catch (RuntimeException ex) {
                // a listener's failure must not stop the rollout or the other listeners
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
