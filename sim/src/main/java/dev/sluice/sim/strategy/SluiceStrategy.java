package dev.sluice.sim.strategy;

import dev.sluice.estimate.ActualTokens;
import dev.sluice.estimate.EstimatorConfig;
import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.TokenEstimator;
import dev.sluice.gateway.proxy.RetryBudget;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.Reservation;
import dev.sluice.governor.Usage;
import dev.sluice.sim.provider.ProviderReply;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.QuotaStore;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The real governor, driven exactly as the gateway drives it: admit; dispatch an admission at
 * once, wait for a queued decision's outcome (which completes during {@code onTimer} or a
 * settlement), return a rejection to the client; run {@code onTimer} when the governor's wake-up
 * hook asks; retry a provider 429 within the reservation when the gateway would (hint within the
 * class budget and deadline, at most one retry per ten first attempts); settle every admission as
 * the gateway does; feed every provider answer to the deployment's adaptive control. One governor per gateway replica, each with its own
 * in-memory store, or one store shared by all when the scenario's store is {@code redis}.
 */
final class SluiceStrategy implements Strategy {

    private final StrategyContext ctx;
    private final SluiceConfig config;
    private final List<Replica> replicas = new ArrayList<>();
    /** One entry per distinct store (a shared store once), for lease accounting. */
    private final List<QuotaStore> stores = new ArrayList<>();
    private final List<QuotaStore> redisStores = new ArrayList<>();
    private long routed;
    private long pastWakeups;
    private long gatewayRetries;

    /** What the gateway waits before retrying a provider 429 that gave no hint. */
    static final long GATEWAY_RETRY_MILLIS = 250;

    SluiceStrategy(StrategyContext ctx) {
        this.ctx = ctx;
        this.config = ctx.scenario().config();
        GovernorConfig gc = config.governorConfig();
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
                                .replicaId("r" + i).build());
                redisStores.add(store);
                if (i == 0) {
                    stores.add(store);
                }
            } else if (store == null) {
                store = new InMemoryQuotaStore(ctx.loop().clock(), config.dailyResetZone());
                stores.add(store);
            }
            QuotaGovernor governor = new QuotaGovernor(gc, store, ctx.loop().clock());
            AdaptiveWiring adaptive = new AdaptiveWiring(ctx.adaptive() ? config : withoutAdaptive(config), governor,
                    ctx.loop(), ctx.random().stream("sluice/adaptive/" + i).nextLong());
            replicas.add(new Replica(i, governor, adaptive));
        }
    }

    @Override
    public String name() {
        return "sluice";
    }

    /** The configuration with every deployment's adaptive control off: the governor alone. */
    private static SluiceConfig withoutAdaptive(SluiceConfig c) {
        java.util.Map<String, dev.sluice.runtime.config.DeploymentConfig> off = new java.util.LinkedHashMap<>();
        for (var d : c.deployments().values()) {
            var a = d.adaptive();
            off.put(d.id(), new dev.sluice.runtime.config.DeploymentConfig(d.id(), d.kind(), d.baseUrl(), d.apiKeyEnv(),
                    d.apiKey(), d.scope(), d.azureDeployment(), d.apiVersion(), d.limits(),
                    new dev.sluice.runtime.config.AdaptiveSettings(false, a.decreaseFactor(), a.increaseStep(), a.floor()),
                    d.ramp(), d.failurePolicy()));
        }
        return c.withDeployments(off);
    }

    @Override
    public void submit(Attempt a) {
        replicas.get((int) (routed++ % replicas.size())).submit(a);
    }

    @Override
    public void close() {
        for (QuotaStore s : redisStores) {
            s.close();
        }
    }

    @Override
    public java.util.Map<String, Long> diagnostics() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        out.put("governor_past_wakeups", pastWakeups);
        out.put("gateway_retries", gatewayRetries);
        for (Replica r : replicas) {
            r.adaptive.diagnostics("replica" + r.index + "_", out);
        }
        return out;
    }

    @Override
    public void checkInvariants() {
        for (Replica r : replicas) {
            for (BucketState b : r.governor.snapshot().buckets()) {
                for (BucketState.DimensionState d : b.dimensions()) {
                    if (!d.conserved()) {
                        throw new IllegalStateException("bucket " + b.key() + " " + d.dimension()
                                + " breaks conservation: " + d);
                    }
                }
            }
        }
        long open = 0;
        for (Replica r : replicas) {
            open += r.holding;
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
        final QuotaGovernor governor;
        final TokenEstimator estimator;
        final AdaptiveWiring adaptive;
        final java.util.Map<String, RetryBudget> retries = new java.util.HashMap<>();
        /** Admitted and not yet settled: each holds one open lease. */
        long holding;
        long scheduledAt = Long.MAX_VALUE;
        long timerToken;

        Replica(int index, QuotaGovernor governor, AdaptiveWiring adaptive) {
            this.index = index;
            this.governor = governor;
            this.adaptive = adaptive;
            this.estimator = new TokenEstimator(EstimatorConfig.defaults(), ctx.loop().clock());
            governor.onWakeup(this::wakeAt);
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
            governor.onTimer();
            wakeAt(governor.nextWakeupNanos());
        }

        void submit(Attempt a) {
            SimRequest r = a.request();
            ProfileConfig profile = config.profiles().get(r.path().modelProfile());
            EstimatorProfile ep = profile.estimatorProfile();
            String route = r.trafficClass().wireName();
            // The simulator has no prompt text: the tokenizer's count is modelled on the request
            // (countedPromptTokens); the estimator supplies the output reservation it has learned.
            TokenEstimate est = estimator.estimate(ep, route,
                    PromptShape.ofMessages(List.of(), OptionalInt.of((int) Math.min(Integer.MAX_VALUE, r.maxTokens()))));
            long input = inputCharge(r, profile);
            long output = est.outputTokens();
            a.estimate(input, output);
            AdmissionRequest req = new AdmissionRequest("r" + r.id() + "#" + a.number(), r.path(),
                    new Demand(input, output, r.streaming()), r.trafficClass(),
                    r.hasDeadline() ? r.deadlineNanos() : AdmissionRequest.NO_DEADLINE);
            Decision d = governor.admit(req);
            switch (d) {
                case Decision.Admitted ad -> {
                    holding++;
                    dispatch(a, ad, ep, route, est);
                }
                case Decision.Rejected rj -> ctx.reject(a, 0, local(rj.rejection()));
                case Decision.Queued q -> q.outcome().whenComplete((f, err) -> {
                    if (err != null) {
                        throw new IllegalStateException("queued outcome failed for " + a, err);
                    }
                    if (f instanceof Decision.Admitted) {
                        holding++;
                    }
                    // Completed inside onTimer or a settlement: act on it as a fresh event at the same instant.
                    ctx.loop().at(ctx.loop().now(), () -> {
                        switch (f) {
                            case Decision.Admitted ad -> dispatch(a, ad, ep, route, est);
                            case Decision.Rejected rj -> ctx.reject(a, ctx.loop().now() - a.submittedAtNanos(),
                                    local(rj.rejection()));
                        }
                    });
                });
            }
        }

        private long inputCharge(SimRequest r, ProfileConfig profile) {
            long counted = r.countedPromptTokens();
            if (profile.cacheReadCountsAgainstInputLimit() || r.promptTokens() == 0) {
                return counted;
            }
            return counted - Math.round((double) counted * r.cacheReadTokens() / r.promptTokens());
        }

        private void dispatch(Attempt a, Decision.Admitted ad, EstimatorProfile ep, String route, TokenEstimate est) {
            Reservation reservation = ad.reservation();
            SimRequest r = a.request();
            long queued = ctx.loop().now() - a.submittedAtNanos();
            RetryBudget budget = retries.computeIfAbsent(r.deployment(), d -> RetryBudget.tenPercent());
            budget.firstAttempt();
            long[] sentAt = {ctx.loop().now()};
            ctx.dispatch(a, queued, reply -> {
                long now = ctx.loop().now();
                adaptive.onSignal(r.deployment(), reply.signal(), now - sentAt[0]);
                if (reply.outcome() == ProviderReply.Outcome.RATE_LIMITED) {
                    // The gateway retries a provider 429 itself, holding the reservation, when the
                    // hint fits the class budget and the deadline and its retry budget allows.
                    long delayMillis = Math.max(1, reply.signal().retryAfterMillis().orElse(GATEWAY_RETRY_MILLIS));
                    long classBudget = config.classes().get(r.trafficClass()).maxQueueWait().toMillis();
                    long deadlineLeft = r.hasDeadline() ? (r.deadlineNanos() - now) / 1_000_000 : Long.MAX_VALUE;
                    if (reply.signal().retryable() && delayMillis <= classBudget && delayMillis < deadlineLeft
                            && budget.tryRetry()) {
                        gatewayRetries++;
                        sentAt[0] = now + delayMillis * 1_000_000;
                        return java.util.OptionalLong.of(delayMillis * 1_000_000);
                    }
                }
                // Settled as the gateway settles: usage on success, nothing for a refusal or an error
                // status, the input and what streamed for a broken connection.
                Usage usage = switch (reply.outcome()) {
                    case SUCCESS -> new Usage(r.inputCharged(), reply.outputTokens());
                    case RATE_LIMITED, TOO_LARGE, SERVER_ERROR, OVERLOADED -> new Usage(0, 0);
                    case RESET -> new Usage(r.inputCharged(), reply.outputTokens());
                };
                holding--;
                reservation.settle(usage);
                if (reply.outcome() == ProviderReply.Outcome.SUCCESS) {
                    estimator.learn(ep, route, est, new ActualTokens(est.promptTokens(), reply.outputTokens(), 0));
                }
                return java.util.OptionalLong.empty();
            });
        }

        private LocalRejection local(Rejection r) {
            return new LocalRejection(r.decision().wireName(), r.code(), r.retryAfterMillis(), r.retryable());
        }
    }
}
