package dev.sluice.sim.strategy;

import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.governor.Rejection;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.Admission;
import dev.sluice.runtime.request.AfterAttempt;
import dev.sluice.runtime.request.AttemptOutcome;
import dev.sluice.runtime.request.ObservedUsage;
import dev.sluice.runtime.request.RequestLifecycle;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.request.RequestThread;
import dev.sluice.sim.provider.ProviderReply;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.QuotaStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Sluice itself: each replica is a {@link SluiceRuntime}, the same assembly the gateway builds,
 * and every request goes through the same {@link RequestLifecycle}, driven over a virtual-time
 * transport: admit; dispatch an admitted attempt, wait for a queued one, return a refusal; end
 * every provider answer through {@code Attempt.finish}, which settles, feeds adaptive control,
 * teaches the estimator and decides a gateway retry exactly as it does in the gateway. Only the
 * transport is the simulator's: the provider's answer as a {@link ProviderReply}, time as the
 * event loop's, and the governor's timer and the adaptive tick as virtual-time events. One runtime
 * per gateway replica, each with its own in-memory store, or one store shared by all when the
 * scenario's store is {@code redis}.
 */
final class SluiceStrategy implements Strategy {

    private final StrategyContext ctx;
    private final SluiceConfig config;
    private final List<Replica> replicas = new ArrayList<>();
    /** One entry per distinct store (a shared store once), for lease accounting. */
    private final List<QuotaStore> stores = new ArrayList<>();
    private final List<QuotaStore> redisStores = new ArrayList<>();
    private final Map<String, Long> adaptiveEvents = new TreeMap<>();
    /** Figures of the first replica's rollout decisions, for the report: counts, times, the worst interval. */
    private final Map<String, Long> rolloutFigures = new TreeMap<>();
    private final ReplicaPicker picker;
    /** Attempts whose admission is pending, by attempt: a client that gives up meanwhile is withdrawn through its lifecycle. */
    private final Map<Attempt, RequestLifecycle> waiting = new java.util.HashMap<>();
    private long pastWakeups;

    /**
     * How long a store call of the simulation may wait for Redis. The run is on the virtual
     * clock, so a machine too busy to answer within the gateway's half second only slows the run;
     * it must not fail a call, which would make the figures depend on the machine's load.
     */
    private static final java.time.Duration SIM_COMMAND_TIMEOUT = java.time.Duration.ofSeconds(30);

    SluiceStrategy(StrategyContext ctx) {
        this.ctx = ctx;
        this.picker = new ReplicaPicker(ctx);
        this.config = ctx.scenario().config();
        boolean redis = ctx.scenario().sharedStore() && ctx.redisUri().isPresent();
        QuotaStore shared = ctx.scenario().sharedStore() && !redis
                ? new InMemoryQuotaStore(ctx.loop().clock(), config.dailyResetZone()) : null;
        if (shared != null) {
            stores.add(shared);
        }
        // A fresh namespace per run: nothing left in Redis by an earlier run can change this one.
        String namespace = "sim-" + ctx.scenario().name().replaceAll("[^A-Za-z0-9_.-]", "-") + "-"
                + Long.toHexString(ctx.random().seed()) + "-" + Long.toHexString(System.nanoTime());
        for (int i = 0; i < ctx.scenario().replicas(); i++) {
            QuotaStore store = shared;
            if (redis) {
                store = dev.sluice.store.redis.RedisQuotaStore.connect(ctx.redisUri().get(),
                        dev.sluice.store.redis.RedisStoreConfig.builder().namespace(namespace)
                                .testClock(ctx.loop().clock()).dailyResetZone(config.dailyResetZone())
                                .replicaId("r" + i).commandTimeout(SIM_COMMAND_TIMEOUT).build());
                redisStores.add(store);
                if (i == 0) {
                    stores.add(store);
                }
            } else if (store == null) {
                store = new InMemoryQuotaStore(ctx.loop().clock(), config.dailyResetZone());
                stores.add(store);
            }
            // No workers: store calls run in place, in virtual time, even against Redis.
            SluiceRuntime runtime = SluiceRuntime.builder(config, store).clock(ctx.loop().clock())
                    .adaptive(ctx.adaptive()).seed(ctx.random().stream("sluice/adaptive/" + i).nextLong()).build();
            replicas.add(new Replica(i, runtime));
            if (redis) {
                // As `sluice serve` on Redis: the replicas exchange queued demand, modes and ramp stages.
                var view = dev.sluice.store.redis.FleetView.manual((dev.sluice.store.redis.RedisQuotaStore) store,
                        runtime.governor(), runtime::controller, FLEET_VIEW_EVERY);
                Runnable[] exchange = new Runnable[1];
                exchange[0] = () -> {
                    view.exchange();
                    ctx.loop().after(FLEET_VIEW_EVERY.toNanos(), exchange[0]);
                };
                ctx.loop().after(FLEET_VIEW_EVERY.toNanos(), exchange[0]);
            }
        }
        if (replicas.size() > 1) {
            // As `sluice serve`: decisions reach every replica; on a shared store the fleet's figures are judged.
            SharedRollouts.share(ctx.loop(), replicas.stream().map(r -> r.runtime).toList(), ctx.scenario().sharedStore(),
                    redisStores.stream().map(q -> (dev.sluice.store.redis.RedisQuotaStore) q).toList());
        }
        arrivals = new long[replicas.size()];
        if (replicas.size() > 1) {
            ctx.loop().after(MODE_SAMPLE_EVERY, this::sampleModes);
        }
    }

    /**
     * Every {@link #MODE_SAMPLE_EVERY} of virtual time, whether the replicas apply different modes to
     * one deployment; the longest and the total time they did (a span is counted from the first
     * sample that saw them differ to the first that saw them agree), for the issue's propagation bound.
     */
    private void sampleModes() {
        long now = ctx.loop().now();
        for (String d : config.deployments().keySet()) {
            java.util.Set<dev.sluice.adapt.Mode> modes = java.util.EnumSet.noneOf(dev.sluice.adapt.Mode.class);
            for (Replica r : replicas) {
                r.runtime.controller(d).ifPresent(c -> modes.add(c.modeInForce(now)));
            }
            Long since = disagreeingSince.get(d);
            if (modes.size() > 1 && since == null) {
                disagreeingSince.put(d, now);
            } else if (modes.size() <= 1 && since != null) {
                disagreeingSince.remove(d);
                longestDisagreement = Math.max(longestDisagreement, now - since);
                totalDisagreement += now - since;
            }
        }
        ctx.loop().after(MODE_SAMPLE_EVERY, this::sampleModes);
    }

    private static final long MODE_SAMPLE_EVERY = 50_000_000L;
    private final Map<String, Long> disagreeingSince = new TreeMap<>();
    private long longestDisagreement;
    private long totalDisagreement;
    private final long[] arrivals;

    /** How often the replicas of a Redis run exchange their fleet view, as {@code sluice serve} does. */
    private static final java.time.Duration FLEET_VIEW_EVERY = java.time.Duration.ofMillis(250);

    @Override
    public String name() {
        return "sluice";
    }

    /**
     * A client that gives up while its attempt waits for admission: the lifecycle withdraws it from
     * the governor's queue, so it is charged nothing and never sent, as the gateway does when a
     * client's connection closes.
     */
    @Override
    public boolean clientGone(Attempt attempt) {
        RequestLifecycle life = waiting.remove(attempt);
        if (life == null) {
            return false;
        }
        life.clientGone();
        return true;
    }

    @Override
    public void submit(Attempt a) {
        int r = picker.next();
        arrivals[r]++;
        replicas.get(r).submit(a);
    }

    @Override
    public void close() {
        for (QuotaStore s : redisStores) {
            s.close();
        }
    }

    @Override
    public Map<String, Long> diagnostics() {
        Map<String, Long> out = new TreeMap<>();
        out.put("governor_past_wakeups", pastWakeups);
        long retries = 0;
        for (Replica r : replicas) {
            retries += r.runtime.counters().gatewayRetries();
        }
        out.put("gateway_retries", retries);
        if (replicas.size() > 1) {
            long now = ctx.loop().now();
            long longest = longestDisagreement;
            long total = totalDisagreement;
            for (long since : disagreeingSince.values()) {
                longest = Math.max(longest, now - since);
                total += now - since;
            }
            out.put("fleet_mode_disagreement_longest_ms", longest / 1_000_000);
            out.put("fleet_mode_disagreement_total_ms", total / 1_000_000);
            for (int i = 0; i < arrivals.length; i++) {
                out.put("replica" + i + "_attempts", arrivals[i]);
            }
        }
        adaptiveEvents.forEach((k, v) -> out.put("adaptive_events_" + k, v));
        out.putAll(rolloutFigures);
        replicas.get(0).runtime.warmups().inspect().forEach(v -> {
            out.put("warmup_" + v.id() + "_final_" + v.status().wireName(), 1L);
            out.put("warmup_" + v.id() + "_grown_minutes", (long) v.grown());
            v.history().stream().filter(h -> h.action().equals("paused")).findFirst()
                    .ifPresent(h -> out.put("warmup_" + v.id() + "_first_paused_at_ms", h.atEpochMillis()));
            v.history().stream().filter(h -> h.action().equals("started")).findFirst()
                    .ifPresent(h -> out.put("warmup_" + v.id() + "_started_at_ms", h.atEpochMillis()));
        });
        replicas.get(0).runtime.rollouts().inspect().forEach(v -> {
            out.put("rollout_" + v.id() + "_final_percent", Math.round(v.percent()));
            out.put("rollout_" + v.id() + "_final_" + v.status().wireName(), 1L);
            // How many replicas end where the first does: all of them, when the state is shared.
            out.put("rollout_" + v.id() + "_replicas_agreeing", replicas.stream().filter(r -> {
                var o = r.runtime.rollouts().inspect(v.id());
                return o.status() == v.status() && o.stage() == v.stage();
            }).count());
        });
        for (Replica r : replicas) {
            r.runtime.adaptive().ifPresent(a -> {
                for (var snap : a.snapshots()) {
                    String prefix = "replica" + r.index + "_" + snap.deployment();
                    double m = snap.multipliers().values().stream().mapToDouble(Double::doubleValue).min().orElse(1);
                    out.put(prefix + "_final_multiplier_permille", Math.round(m * 1000));
                    out.put(prefix + "_final_ramp_stage", (long) snap.rampStage());
                    out.put(prefix + "_final_mode_" + snap.mode().name().toLowerCase(Locale.ROOT), 1L);
                }
            });
        }
        return out;
    }

    @Override
    public void checkInvariants() {
        long open = 0;
        for (Replica r : replicas) {
            for (BucketState b : r.runtime.governor().snapshot().buckets()) {
                for (BucketState.DimensionState d : b.dimensions()) {
                    if (!d.conserved()) {
                        throw new IllegalStateException("bucket " + b.key() + " " + d.dimension()
                                + " breaks conservation: " + d);
                    }
                }
            }
            open += r.runtime.counters().reservationsOpen();
        }
        long leases = 0;
        for (QuotaStore s : stores) {
            leases += s.openLeases();
        }
        if (open != leases) {
            throw new IllegalStateException("open leases " + leases + " != admitted and unsettled " + open);
        }
    }

    private final class Replica {
        final int index;
        final SluiceRuntime runtime;
        /** Decisions completed inside the governor's timer or a settlement act as a fresh event at the same instant. */
        final RequestThread thread;
        long scheduledAt = Long.MAX_VALUE;
        long timerToken;

        Replica(int index, SluiceRuntime runtime) {
            this.index = index;
            this.runtime = runtime;
            this.thread = work -> ctx.loop().at(ctx.loop().now(), work);
            runtime.governor().onWakeup(this::wakeAt);
            runtime.adaptive().ifPresent(a -> a.addListener(e -> adaptiveEvents.merge(e.getClass().getSimpleName(), 1L,
                    Long::sum)));
            if (index == 0) {
                runtime.rollouts().onDecision(this::recordRollout);
            } else {
                // Decisions the other replicas make themselves (none while the fleet's figures are judged by r0).
                runtime.rollouts().onDecision(d -> rolloutFigures.merge("rollout_" + d.rollout() + "_decided_elsewhere",
                        1L, Long::sum));
            }
            long interval = AdaptiveControllers.TICK_INTERVAL.toNanos();
            Runnable[] tick = new Runnable[1];
            tick[0] = () -> {
                runtime.tick();
                ctx.loop().after(interval, tick[0]);
            };
            ctx.loop().after(interval, tick[0]);
        }

        /** A rollout decision's figures: how many of each action, when the first of each, the worst interval's 429s. */
        void recordRollout(RolloutDecision d) {
            String prefix = "rollout_" + d.rollout() + "_";
            rolloutFigures.merge(prefix + d.action().wireName(), 1L, Long::sum);
            rolloutFigures.putIfAbsent(prefix + "first_" + d.action().wireName() + "_at_ms",
                    ctx.loop().now() / 1_000_000);
            d.figures().ifPresent(f -> {
                rolloutFigures.merge(prefix + "max_interval_429_permille", Math.round(f.provider429Rate() * 1000),
                        Math::max);
                rolloutFigures.merge(prefix + "target_attempts", f.attempts(), Long::sum);
                rolloutFigures.merge(prefix + "target_429s", f.throttled(), Long::sum);
            });
            // The target's 429 rate over the whole rollout when it first paused: what the pause spared it.
            rolloutFigures.computeIfAbsent(prefix + "first_" + d.action().wireName() + "_target_429_permille",
                    k -> Math.round(1000.0 * rolloutFigures.getOrDefault(prefix + "target_429s", 0L)
                            / Math.max(1, rolloutFigures.getOrDefault(prefix + "target_attempts", 0L))));
        }

        /**
         * The governor wants {@code onTimer} at {@code t}: armed as the gateway's wake-up driver arms
         * its one Vert.x timer (an earlier request replaces a later one, whole milliseconds, at least
         * one), so queued requests are served on the same schedule as in the gateway.
         */
        void wakeAt(long t) {
            long now = ctx.loop().now();
            if (t != Long.MAX_VALUE && t <= now) {
                // A wake-up already due: the governor announced work it could have done itself.
                pastWakeups++;
            }
            if (t == Long.MAX_VALUE || t >= scheduledAt) {
                return;
            }
            scheduledAt = t;
            long token = ++timerToken;
            long delayMillis = Math.max(1, (t - now + 999_999) / 1_000_000);
            ctx.loop().after(delayMillis * 1_000_000, () -> fire(token));
        }

        private void fire(long token) {
            if (token != timerToken) {
                return;
            }
            scheduledAt = Long.MAX_VALUE;
            runtime.onTimer(() -> wakeAt(runtime.governor().nextWakeupNanos()));
        }

        void submit(Attempt a) {
            SimRequest r = a.request();
            ProfileConfig profile = config.profiles().get(r.path().modelProfile());
            RequestPlan plan = new RequestPlan("r" + r.id() + "#" + a.number(), "openai.chat",
                    new Caller(r.path().organisation(), r.path().tenant(), r.path().team(), r.path().apiKey()), profile,
                    r.trafficClass(), r.hasDeadline() ? r.deadlineNanos() : SimRequest.NO_DEADLINE, quote(r, profile),
                    r.streaming());
            a.estimate(plan.estimate().inputTokens(), plan.estimate().outputTokens());
            RequestLifecycle life = runtime.arrive(plan.traceId(), thread);
            life.planned(plan);
            waiting.put(a, life);
            life.admit(decided -> {
                waiting.remove(a);
                switch (decided) {
                    case Admission.Admitted ad -> {
                        dispatch(a, life, ad.attempt());
                        shadow(a, plan, ad.attempt());
                    }
                    case Admission.Refused rj -> {
                        ctx.reject(a, ctx.loop().now() - a.submittedAtNanos(), local(rj.rejection()));
                        life.answered(429, Optional.of(rj.rejection().code()),
                                OptionalLong.of(rj.rejection().retryAfterMillis()));
                    }
                    case Admission.StoreUnavailable u -> throw new IllegalStateException("quota store failed for " + a);
                }
            });
        }

        /**
         * The preflight quote. The simulator has no prompt text: the tokenizer's count is modelled on
         * the request ({@code countedPromptTokens}), with the part expected from the cache taken off
         * where the provider does not count it; the estimator supplies the output reservation it
         * has learned.
         */
        private TokenEstimate quote(SimRequest r, ProfileConfig profile) {
            EstimatorProfile ep = profile.estimatorProfile();
            TokenEstimate learned = runtime.estimator().estimate(ep, RequestPlan.estimateKey(profile, r.trafficClass()),
                    PromptShape.ofMessages(List.of(), OptionalInt.of((int) Math.min(Integer.MAX_VALUE, r.maxTokens()))));
            long counted = r.countedPromptTokens();
            long cached = r.promptTokens() == 0 ? 0
                    : Math.min(counted, Math.round((double) counted * r.cacheReadTokens() / r.promptTokens()));
            long input = profile.cacheReadCountsAgainstInputLimit() ? counted : counted - cached;
            return new TokenEstimate(input, learned.outputTokens(), cached, counted, counted, learned.method());
        }

        private void dispatch(Attempt a, RequestLifecycle life, dev.sluice.runtime.request.Attempt first) {
            long queued = ctx.loop().now() - a.submittedAtNanos();
            dispatch(a, life, first, queued);
        }

        /** Sends {@code first} to the deployment it was admitted on; {@code queued}: how long it waited for it. */
        private void dispatch(Attempt a, RequestLifecycle life, dev.sluice.runtime.request.Attempt first, long queued) {
            dev.sluice.runtime.request.Attempt[] current = {first};
            first.sending();
            ctx.dispatch(a, queued, first.deployment().id(), reply -> {
                AfterAttempt next = current[0].finish(outcome(reply));
                switch (next) {
                    case AfterAttempt.Retry retry -> {
                        // Sent again after the delay: stamped then, before the provider sees it.
                        current[0] = retry.next();
                        long delay = retry.delayMillis() * 1_000_000;
                        ctx.loop().after(delay, current[0]::sending);
                        return OptionalLong.of(delay);
                    }
                    case AfterAttempt.Reroute elsewhere -> {
                        // Admitted again once the attempt is back at the gateway, as the gateway's transport does.
                        ctx.loop().after(0, () -> readmit(a, life));
                        return StrategyContext.ReplyHandler.ELSEWHERE;
                    }
                    case AfterAttempt.Done done -> {
                        life.answered(status(reply), Optional.empty(), OptionalLong.empty());
                        return OptionalLong.empty();
                    }
                }
            });
        }

        /**
         * A sampled copy of a first attempt for its profile's rollout target in the shadow phase,
         * admitted on the target's buckets by the runtime as the gateway's is
         * ({@link SluiceRuntime#shadow}), sent to the target's provider; its answer ends the copy
         * (settled when answered, released otherwise) and counts in the rollout's figures.
         */
        private void shadow(Attempt a, RequestPlan plan, dev.sluice.runtime.request.Attempt first) {
            if (first.number() != 1) {
                return;
            }
            runtime.shadow(plan, first.deployment().id()).ifPresent(copy -> {
                rolloutFigures.merge("rollout_shadow_copies", 1L, Long::sum);
                ctx.shadow(a, copy.target().id(), reply -> {
                    int s = status(reply);
                    dev.sluice.runtime.event.AttemptResult result = s >= 200 && s < 300
                            ? dev.sluice.runtime.event.AttemptResult.ANSWERED
                            : s == 429 ? dev.sluice.runtime.event.AttemptResult.THROTTLED
                                    : dev.sluice.runtime.event.AttemptResult.FAILED;
                    if (result == dev.sluice.runtime.event.AttemptResult.THROTTLED) {
                        rolloutFigures.merge("rollout_shadow_429s", 1L, Long::sum);
                    }
                    copy.end(result);
                });
            });
        }

        /** The routing policy moved the request: its next attempt is admitted on the next allowed deployment. */
        private void readmit(Attempt a, RequestLifecycle life) {
            long askedAt = ctx.loop().now();
            life.admit(decided -> {
                switch (decided) {
                    case Admission.Admitted ad -> dispatch(a, life, ad.attempt(), ctx.loop().now() - askedAt);
                    case Admission.Refused rj -> {
                        ctx.reject(a, ctx.loop().now() - askedAt, local(rj.rejection()));
                        life.answered(429, Optional.of(rj.rejection().code()),
                                OptionalLong.of(rj.rejection().retryAfterMillis()));
                    }
                    case Admission.StoreUnavailable u -> throw new IllegalStateException("quota store failed for " + a);
                }
            });
        }

        private LocalRejection local(Rejection r) {
            return new LocalRejection(r.decision().wireName(), r.code(), r.retryAfterMillis(), r.retryable());
        }
    }

    /** The provider's answer as the gateway's transport would report it. */
    static AttemptOutcome outcome(ProviderReply reply) {
        return switch (reply.outcome()) {
            case SUCCESS -> new AttemptOutcome.Answered(reply.signal(), new ObservedUsage(
                    reply.inputTokens() - reply.cacheReadTokens(), reply.outputTokens(), reply.cacheReadTokens(), 0, true));
            case RATE_LIMITED, TOO_LARGE -> new AttemptOutcome.Throttled(reply.signal());
            case SERVER_ERROR, OVERLOADED -> new AttemptOutcome.Failed(reply.signal(), Optional.empty());
            // A broken stream: what arrived is counted, as the gateway counts a stream's chunks.
            case RESET -> new AttemptOutcome.Failed(reply.signal(),
                    Optional.of(new ObservedUsage(0, reply.outputTokens(), 0, 0, false)));
        };
    }

    private static int status(ProviderReply reply) {
        return reply.signal().httpStatus() > 0 ? reply.signal().httpStatus() : 502;
    }
}
