package dev.sluice.store.redis;

import dev.sluice.adapt.AdaptiveController;
import dev.sluice.adapt.FleetAdaptive;
import dev.sluice.adapt.Mode;
import dev.sluice.governor.QueuedDemand;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.TrafficClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What the replicas of one fleet tell each other so that they decide as one governor: per
 * deployment, what each has queued (configured-rate cost per class, the unit of fair order) and its
 * own adaptive mode. Every {@code every} (off the request path, on a thread of its own) one library
 * call ({@code fleet} in {@code calls.lua}) writes this replica's publication into
 * {@code ns:{ns}:fleet} and reads every other fresh one; a publication stays fresh for three
 * intervals, so a replica killed without a word stops counting within that time and one stopped
 * cleanly at once ({@link #close}).
 *
 * <p>What it read goes to this replica's governor ({@link QuotaGovernor#othersQueued}: waits
 * predicted over the fleet's queues, refills shared by queued demand) and to each deployment's
 * adaptive controller ({@link AdaptiveController#fleet}: the most severe mode published by any
 * replica applies everywhere until its publication goes stale, shedding as deep as the deepest
 * shedding replica, refusing batch while a protected class asked any replica within the window,
 * and one probe after an overload for the whole fleet). While Redis cannot answer, the last
 * reading stands until it goes stale.
 */
public final class FleetView implements AutoCloseable {

    private static final TrafficClass[] CLASSES = TrafficClass.values();

    private final RedisQuotaStore store;
    private final QuotaGovernor governor;
    private final Function<String, Optional<AdaptiveController>> controllers;
    private final Duration freshFor;
    private final String self;
    private final ScheduledExecutorService timer;
    /** Deployments the others last had work queued for: cleared once they have none. */
    private Set<String> othersQueuing = new HashSet<>();
    /** Each other replica's success count per deployment as last read ({@code replica TAB deployment}). */
    private Map<String, Long> successesSeen = new HashMap<>();
    /** Whether this replica has taken the fleet's ramp stages (once, at its first exchange that met others). */
    private boolean joined;
    /** Ramp stages as this replica last wrote them to {@code ns:{ns}:ramp}. */
    private final Map<String, Integer> writtenStages = new HashMap<>();
    private volatile Reading last = new Reading(Map.of());

    /** One replica's latest publication: per deployment, its own mode and its queued cost per class. */
    public record ReplicaState(String replica, Map<String, DeploymentState> deployments) {
        public ReplicaState {
            Objects.requireNonNull(replica, "replica");
            deployments = Map.copyOf(deployments);
        }
    }

    /**
     * One deployment as one replica sees it.
     *
     * @param mode that replica's own adaptive mode (normal when it runs no adaptive control)
     * @param queuedNanos configured-rate cost queued, per class wire name, classes with none left out
     * @param rampStage that replica's ramp stage (the last stage when it runs no ramp)
     * @param shedDeep whether that replica, in load shedding, sheds the shed-last classes too
     * @param probe that replica's probe after an overload, if it holds one
     * @param successes successful answers that replica has had from the deployment so far (-1: not said)
     * @param protectedAskedAgoNanos how long before the publication a class load shedding still serves
     *     last asked there ({@link FleetAdaptive#NEVER}: none within the window, or not said)
     */
    public record DeploymentState(Mode mode, Map<String, Long> queuedNanos, int rampStage, boolean shedDeep,
            Optional<FleetAdaptive.Probe> probe, long successes, long protectedAskedAgoNanos) {
        public DeploymentState {
            Objects.requireNonNull(mode, "mode");
            queuedNanos = Map.copyOf(queuedNanos);
            Objects.requireNonNull(probe, "probe");
            shedDeep = shedDeep && mode == Mode.LOAD_SHEDDING;
            if (protectedAskedAgoNanos < 0) {
                throw new IllegalArgumentException(
                        "protectedAskedAgoNanos: " + protectedAskedAgoNanos + " (expected: >= 0)");
            }
        }

        /** A deployment with neither deep shedding, a probe nor a protected caller. */
        public DeploymentState(Mode mode, Map<String, Long> queuedNanos, int rampStage) {
            this(mode, queuedNanos, rampStage, false, Optional.empty(), -1, FleetAdaptive.NEVER);
        }

        /** The adaptive part: mode, shedding depth, probe and the latest protected caller. */
        public FleetAdaptive adaptive() {
            return new FleetAdaptive(mode, shedDeep, probe, protectedAskedAgoNanos);
        }
    }

    /** What the last exchange read: every other live replica's publication, by replica id. */
    public record Reading(Map<String, ReplicaState> others) {
        public Reading {
            others = Map.copyOf(others);
        }
    }

    private FleetView(RedisQuotaStore store, QuotaGovernor governor,
            Function<String, Optional<AdaptiveController>> controllers, Duration every, boolean scheduled) {
        this.store = Objects.requireNonNull(store, "store");
        this.governor = Objects.requireNonNull(governor, "governor");
        this.controllers = Objects.requireNonNull(controllers, "controllers");
        if (!every.isPositive()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        this.freshFor = every.multipliedBy(3);
        this.self = store.config().replicaId();
        this.timer = scheduled ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-fleet-view");
            t.setDaemon(true);
            return t;
        }) : null;
    }

    /**
     * Exchanges now and then every {@code every} until closed.
     *
     * @param controllers the deployment's adaptive controller, if it runs one
     */
    public static FleetView start(RedisQuotaStore store, QuotaGovernor governor,
            Function<String, Optional<AdaptiveController>> controllers, Duration every) {
        FleetView v = new FleetView(store, governor, controllers, every, true);
        v.exchange();
        v.timer.scheduleWithFixedDelay(v::exchange, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return v;
    }

    /** A view that exchanges only when {@link #exchange} is called (tests, the simulator). */
    public static FleetView manual(RedisQuotaStore store, QuotaGovernor governor,
            Function<String, Optional<AdaptiveController>> controllers, Duration every) {
        return new FleetView(store, governor, controllers, every, false);
    }

    /**
     * Publishes this replica's state, reads the others' and applies it; one round trip. Returns
     * false (and changes nothing) when Redis did not answer.
     */
    public synchronized boolean exchange() {
        List<Object> out;
        try {
            out = call(publication());
        } catch (StoreUnavailableException e) {
            return false;
        } catch (RuntimeException e) {
            // The timer must keep running whatever one exchange met.
            return false;
        }
        Map<String, ReplicaState> others = new TreeMap<>();
        for (int i = 1; i + 1 < out.size(); i += 2) {
            String id = (String) out.get(i);
            others.put(id, new ReplicaState(id, parse(id, (String) out.get(i + 1))));
        }
        apply(others);
        last = new Reading(others);
        writeRampStages();
        return true;
    }

    /** What the last exchange read; never calls Redis. */
    public Reading lastReading() {
        return last;
    }

    /** This replica's publication now, as the others read it. */
    public ReplicaState own() {
        return new ReplicaState(self, parse(self, publication()));
    }

    /** Stops exchanging and withdraws this replica's publication, so the others stop counting it at once. */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
        try {
            call("");
        } catch (RuntimeException e) {
            // It goes stale by itself within three intervals.
        }
    }

    private List<Object> call(String publication) {
        RedisLink link = store.link();
        return link.callList(Library.Fn.FLEET, new byte[][] {Packing.key(store.keys().fleet())}, store.clock(),
                store.config().replicaId(), freshFor.toNanos(), publication);
    }

    /**
     * One line per deployment that has work queued here or runs adaptive control:
     * {@code deployment TAB mode TAB cost of each class, space-separated TAB ramp stage TAB
     * shedding depth ({@code deep} or {@code -}) TAB probe ({@code -}, or the nanoseconds until it
     * starts, a space and its cause) TAB successful answers so far (-1 without adaptive control)
     * TAB how many nanoseconds ago a class load shedding still serves asked ({@code -}: none within
     * the window)}. Readers take lines of four fields (earlier builds) as neither deep nor probing,
     * lines without the count as recovering by themselves, and lines without the last field as
     * protecting nobody.
     */
    private String publication() {
        String self = this.self;
        Map<String, long[]> queued = new TreeMap<>();
        for (QueuedDemand q : governor.queuedDemand()) {
            queued.put(q.deployment(), q.costNanosByClass());
        }
        Set<String> deployments = new java.util.TreeSet<>(queued.keySet());
        deployments.addAll(governor.config().scopes().keySet().stream()
                .filter(s -> s.level() == dev.sluice.limits.ScopeLevel.PROVIDER_DEPLOYMENT).map(s -> s.id()).toList());
        StringBuilder b = new StringBuilder("v1");
        for (String d : deployments) {
            Optional<AdaptiveController> c = controllers.apply(d);
            long[] q = queued.getOrDefault(d, new long[CLASSES.length]);
            if (c.isEmpty() && java.util.Arrays.stream(q).allMatch(x -> x == 0)) {
                continue;
            }
            FleetAdaptive own = c.map(a -> a.published(self)).orElse(FleetAdaptive.CALM);
            b.append('\n').append(d).append('\t').append(own.mode().wireName()).append('\t');
            for (int i = 0; i < q.length; i++) {
                b.append(i == 0 ? "" : " ").append(q[i]);
            }
            b.append('\t').append(c.map(AdaptiveController::rampStage).orElse(-1));
            b.append('\t').append(own.shedDeep() ? "deep" : "-").append('\t');
            b.append(own.probe().map(p -> p.startsInNanos() + " " + p.cause().replaceAll("[\t\n]", " "))
                    .orElse("-"));
            b.append('\t').append(c.map(AdaptiveController::successes).orElse(-1L));
            b.append('\t').append(own.protectedAskedAgoNanos() == FleetAdaptive.NEVER ? "-"
                    : Long.toString(own.protectedAskedAgoNanos()));
        }
        return b.toString();
    }

    private static Map<String, DeploymentState> parse(String replica, String publication) {
        Map<String, DeploymentState> out = new TreeMap<>();
        String[] lines = publication.split("\n");
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t");
            if (f.length != 4 && f.length < 6) {
                continue;
            }
            Mode mode;
            try {
                mode = Mode.valueOf(f[1].toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                mode = Mode.NORMAL;
            }
            String[] costs = f[2].split(" ");
            Map<String, Long> q = new java.util.LinkedHashMap<>();
            for (int c = 0; c < Math.min(costs.length, CLASSES.length); c++) {
                long v = Long.parseLong(costs[c]);
                if (v > 0) {
                    q.put(CLASSES[c].wireName(), v);
                }
            }
            boolean deep = f.length >= 6 && f[4].equals("deep");
            Optional<FleetAdaptive.Probe> probe = Optional.empty();
            if (f.length >= 6 && !f[5].equals("-")) {
                int sp = f[5].indexOf(' ');
                String startsIn = sp < 0 ? f[5] : f[5].substring(0, sp);
                probe = Optional.of(new FleetAdaptive.Probe(Math.max(0, Long.parseLong(startsIn)), replica,
                        sp < 0 ? "an overload" : f[5].substring(sp + 1)));
            }
            long successes = f.length >= 7 ? Long.parseLong(f[6]) : -1;
            long asked = f.length >= 8 && !f[7].equals("-") ? Math.max(0, Long.parseLong(f[7])) : FleetAdaptive.NEVER;
            out.put(f[0], new DeploymentState(mode, q, Integer.parseInt(f[3]), deep, probe, successes, asked));
        }
        return out;
    }

    /** This replica's ramp stages into {@code ns:{ns}:ramp}, where they changed (one round trip each). */
    private void writeRampStages() {
        for (var scope : governor.config().scopes().keySet()) {
            if (scope.level() != dev.sluice.limits.ScopeLevel.PROVIDER_DEPLOYMENT) {
                continue;
            }
            String d = scope.id();
            controllers.apply(d).ifPresent(c -> {
                int stage = c.rampStage();
                if (!Integer.valueOf(stage).equals(writtenStages.get(d))) {
                    try {
                        store.sharedControl().setRampStage(d, stage);
                        writtenStages.put(d, stage);
                    } catch (RuntimeException e) {
                        // Written at the next exchange.
                    }
                }
            });
        }
    }

    private void apply(Map<String, ReplicaState> others) {
        Map<String, long[]> sums = new HashMap<>();
        Map<String, FleetAdaptive> severest = new HashMap<>();
        Map<String, Integer> highestStage = new HashMap<>();
        Map<String, Long> fleetSuccesses = new HashMap<>();
        Map<String, Long> seen = new HashMap<>();
        for (ReplicaState r : others.values()) {
            r.deployments().forEach((d, s) -> {
                if (s.successes() >= 0) {
                    String key = r.replica() + "\t" + d;
                    Long before = successesSeen.get(key);
                    // A replica first heard of counts from now: its past successes were before this one listened.
                    if (before != null && s.successes() > before) {
                        fleetSuccesses.merge(d, s.successes() - before, Long::sum);
                    }
                    seen.put(key, s.successes());
                }
                long[] sum = sums.computeIfAbsent(d, k -> new long[CLASSES.length]);
                for (int c = 0; c < CLASSES.length; c++) {
                    sum[c] += s.queuedNanos().getOrDefault(CLASSES[c].wireName(), 0L);
                }
                severest.merge(d, s.adaptive(), FleetAdaptive::merge);
                highestStage.merge(d, s.rampStage(), Math::max);
            });
        }
        if (!joined && !others.isEmpty()) {
            // A replica joining a running fleet starts its ramps where the live replicas are, not
            // cold: its cold-start factor would otherwise be the lowest proposal and slow the fleet.
            joined = true;
            highestStage.forEach((d, stage) -> controllers.apply(d).ifPresent(c -> c.joinRamp(stage)));
        }
        Set<String> queuing = new HashSet<>();
        sums.forEach((d, sum) -> {
            if (java.util.Arrays.stream(sum).anyMatch(x -> x > 0)) {
                queuing.add(d);
                governor.othersQueued(d, sum);
            }
        });
        for (String d : othersQueuing) {
            if (!queuing.contains(d)) {
                governor.othersQueued(d, new long[CLASSES.length]);
            }
        }
        othersQueuing = queuing;
        successesSeen = seen;
        fleetSuccesses.forEach((d, n) -> controllers.apply(d).ifPresent(c -> c.fleetSuccesses(n)));
        long until = governor.clock().nanos() + freshFor.toNanos();
        for (String d : severest.keySet()) {
            controllers.apply(d).ifPresent(c -> c.fleet(severest.get(d), self, until));
        }
    }

    /** The fleet's merged state per deployment: the others' queued cost summed, and the most severe mode. */
    public static Map<String, DeploymentState> merged(List<ReplicaState> replicas) {
        Map<String, FleetAdaptive> modes = new TreeMap<>();
        Map<String, Map<String, Long>> queued = new TreeMap<>();
        for (ReplicaState r : replicas) {
            r.deployments().forEach((d, s) -> {
                modes.merge(d, s.adaptive(), FleetAdaptive::merge);
                Map<String, Long> q = queued.computeIfAbsent(d, k -> new java.util.LinkedHashMap<>());
                s.queuedNanos().forEach((c, v) -> q.merge(c, v, Long::sum));
            });
        }
        Map<String, DeploymentState> out = new TreeMap<>();
        Map<String, Integer> stages = new TreeMap<>();
        for (ReplicaState r : replicas) {
            r.deployments().forEach((d, s) -> stages.merge(d, s.rampStage(), Math::min));
        }
        // The fleet runs at its lowest fresh proposal, so its ramp is the lowest stage of any replica.
        modes.forEach((d, m) -> out.put(d, new DeploymentState(m.mode(), queued.get(d), stages.get(d), m.shedDeep(),
                m.probe(), -1, m.protectedAskedAgoNanos())));
        return out;
    }

    static List<ReplicaState> all(ReplicaState own, Reading reading) {
        List<ReplicaState> all = new ArrayList<>();
        all.add(own);
        all.addAll(reading.others().values());
        return all;
    }
}
