package dev.sluice.gateway.metrics;

import dev.sluice.runtime.config.MetricsSettings;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.TokenCounts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The meters fed by request events. Each request event is read once, on the thread that ended the
 * request: a handful of map look-ups keyed by small records (meters are made once per label set,
 * then only counted), no string building on the way.
 */
final class EventMeters {

    static final String NONE = "none";

    /** Ratio boundaries for actual over estimated tokens: a good estimate lands in the middle buckets. */
    private static final double[] RATIO_BUCKETS = {0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2, 4, 10};
    /** Queue waits: from a refill tick to a class's longest budget. */
    private static final Duration[] WAIT_BUCKETS = millis(5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
            30000);
    /** Provider retry-after hints: sub-second window resets to a minute's cooldown and beyond. */
    private static final Duration[] RETRY_AFTER_BUCKETS = millis(100, 250, 500, 1000, 2000, 5000, 10000, 20000,
            30000, 60000, 120000, 300000);

    private record ConsumerKey(String profile, String cls, String tenant, String key) {}

    private record Consumer(Counter requestsBorrowed, Counter inputTokens, Counter outputTokens, Counter cacheReads) {}

    private record RequestKey(String profile, String cls, String decision, int status, String tenant, String key) {}

    private record RouteKey(String profile, String cls) {}

    private record Route(Counter estimatedInput, Counter estimatedOutput, Counter usedInput, Counter usedOutput,
            DistributionSummary inputRatio, DistributionSummary outputRatio, Timer queueWait) {}

    private record DecisionKey(String outcome, String limiter, String scopeLevel, String cls, String profile,
            String deployment) {}

    private record AttemptKey(String operation, String provider, String model, String deployment,
            AttemptResult result) {}

    private record Attempts(Counter count, Timer duration, Timer firstChunk, DistributionSummary inputTokens,
            DistributionSummary outputTokens) {}

    private record ThrottleKey(String provider, String deployment, String limiter) {}

    private record Throttles(Counter count, Timer retryAfter) {}

    private record CacheKey(String deployment, boolean counted) {}

    private final MeterRegistry registry;
    private final boolean tenantLabel;
    private final boolean keyLabel;
    private final ConcurrentHashMap<ConsumerKey, Consumer> consumers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<RequestKey, Counter> requests = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<RouteKey, Route> routes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<DecisionKey, Counter> decisions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<AttemptKey, Attempts> attempts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ThrottleKey, Throttles> throttles = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CacheKey, Counter> cacheReads = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> fallbacks = new ConcurrentHashMap<>();
    private final Function<ConsumerKey, Consumer> newConsumer = this::consumer;
    private final Function<RequestKey, Counter> newRequest = this::request;
    private final Function<RouteKey, Route> newRoute = this::route;
    private final Function<DecisionKey, Counter> newDecision = this::decision;
    private final Function<AttemptKey, Attempts> newAttempts = this::attempts;
    private final Function<ThrottleKey, Throttles> newThrottles = this::throttles;
    private final Function<CacheKey, Counter> newCacheReads = this::cacheReads;
    private final Function<String, Counter> newFallbacks = this::fallbacks;

    EventMeters(MeterRegistry registry, MetricsSettings settings) {
        this.registry = registry;
        this.tenantLabel = settings.tenantLabel();
        this.keyLabel = settings.keyLabel();
    }

    /**
     * Makes the series a dashboard asks about before any traffic has made them, at zero: a
     * profile that never fell back shows 0, not "no data".
     */
    void declare(Iterable<String> profiles) {
        for (String p : profiles) {
            fallbacks.computeIfAbsent(p, newFallbacks);
        }
    }

    void onRequest(RequestEvent e) {
        String profile = e.profile().orElse(NONE);
        String cls = e.trafficClass().orElse(NONE);
        Optional<Caller> caller = e.caller();
        String tenant = tenantLabel ? caller.map(Caller::tenant).orElse(NONE) : NONE;
        String key = keyLabel ? caller.map(Caller::apiKeyId).orElse(NONE) : NONE;

        Consumer c = consumers.computeIfAbsent(new ConsumerKey(profile, cls, tenant, key), newConsumer);
        TokenCounts used = e.usage();
        c.inputTokens.increment(used.input());
        c.outputTokens.increment(used.output());
        c.cacheReads.increment(used.cacheRead());
        if (e.borrowed()) {
            c.requestsBorrowed.increment();
        }

        if (!"none".equals(e.decision())) {
            Optional<Decider> d = e.decider();
            String limiter = d.map(Decider::limiter).orElse(NONE);
            String level = d.map(x -> level(x.scope())).orElse(NONE);
            decisions.computeIfAbsent(new DecisionKey(e.decision(), limiter, level, cls, profile,
                    e.deployment().orElse(NONE)), newDecision).increment();
        }

        if (e.profile().isPresent() && e.trafficClass().isPresent()) {
            Route r = routes.computeIfAbsent(new RouteKey(profile, cls), newRoute);
            if ("queued".equals(e.decision())) {
                r.queueWait.record(e.queueWaitNanos(), TimeUnit.NANOSECONDS);
            }
            if (e.fallback().isPresent()) {
                fallbacks.computeIfAbsent(profile, newFallbacks).increment();
            }
            TokenCounts est = e.estimate();
            // Only a provider's own report says how wrong the estimate was; Sluice's count would flatter it.
            if (e.usageReported() && e.attempts() > 0 && e.status() < 300) {
                r.estimatedInput.increment(est.input() + est.cacheRead());
                r.estimatedOutput.increment(est.output());
                r.usedInput.increment(used.input() + used.cacheRead());
                r.usedOutput.increment(used.output());
                if (est.input() + est.cacheRead() > 0) {
                    r.inputRatio.record((double) (used.input() + used.cacheRead()) / (est.input() + est.cacheRead()));
                }
                if (est.output() > 0) {
                    r.outputRatio.record((double) used.output() / est.output());
                }
            }
        }

        for (AttemptEvent a : e.attemptEvents()) {
            onAttempt(e.operation(), e.streaming(), a);
        }
        // Last, so that a scrape that sees the request sees everything it added.
        requests.computeIfAbsent(new RequestKey(profile, cls, e.decision(), e.status(), tenant, key), newRequest)
                .increment();
    }

    private void onAttempt(String operation, boolean streaming, AttemptEvent a) {
        Attempts m = attempts.computeIfAbsent(new AttemptKey(operation, a.provider(), a.providerModel(),
                a.deployment(), a.result()), newAttempts);
        m.count.increment();
        if (a.result() != AttemptResult.NEVER_SENT) {
            m.duration.record(a.latencyNanos(), TimeUnit.NANOSECONDS);
        }
        if (streaming && a.timeToFirstTokenNanos().isPresent()) {
            m.firstChunk.record(a.timeToFirstTokenNanos().getAsLong(), TimeUnit.NANOSECONDS);
        }
        if (a.result() == AttemptResult.ANSWERED || a.result() == AttemptResult.CLIENT_GONE) {
            // The conventions' input is every prompt token, cached or not.
            m.inputTokens.record(a.usage().input() + a.usage().cacheRead());
            m.outputTokens.record(a.usage().output());
        }
        if (a.usage().cacheRead() > 0) {
            cacheReads.computeIfAbsent(new CacheKey(a.deployment(), a.cacheReadsCounted()), newCacheReads)
                    .increment(a.usage().cacheRead());
        }
        if (a.result() == AttemptResult.THROTTLED) {
            Throttles t = throttles.computeIfAbsent(new ThrottleKey(a.provider(), a.deployment(),
                    a.limitHit().orElse("unknown")), newThrottles);
            t.count.increment();
            if (a.providerRetryAfterMillis().isPresent()) {
                t.retryAfter.record(a.providerRetryAfterMillis().getAsLong(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** {@code tenant:acme} is at level {@code tenant}; {@code gateway} names itself. */
    static String level(String scope) {
        int colon = scope.indexOf(':');
        return colon < 0 ? scope : scope.substring(0, colon);
    }

    private Tags who(Tags base, String tenant, String key) {
        Tags t = base;
        if (tenantLabel) {
            t = t.and("tenant", tenant);
        }
        if (keyLabel) {
            t = t.and("api_key", key);
        }
        return t;
    }

    private Consumer consumer(ConsumerKey k) {
        Tags t = who(Tags.of("profile", k.profile, "class", k.cls), k.tenant, k.key);
        return new Consumer(
                Counter.builder("sluice.requests.borrowed").description(
                        "Requests admitted on capacity beyond their tenant's guaranteed share").tags(t).register(registry),
                tokens(t, "input"), tokens(t, "output"), tokens(t, "cache_read"));
    }

    private Counter tokens(Tags t, String type) {
        return Counter.builder("sluice.tokens").description(
                "Tokens used by requests, as the provider reported them or Sluice counted them; input excludes cache reads")
                .tags(t).tag("type", type).register(registry);
    }

    private Counter request(RequestKey k) {
        return Counter.builder("sluice.requests").description("Requests answered, by how admission went and the status")
                .tags(who(Tags.of("profile", k.profile, "class", k.cls, "decision", k.decision, "status",
                        Integer.toString(k.status)), k.tenant, k.key))
                .register(registry);
    }

    private Route route(RouteKey k) {
        Tags t = Tags.of("profile", k.profile, "class", k.cls);
        return new Route(
                estimated(t, "input"), estimated(t, "output"), reported(t, "input"), reported(t, "output"),
                ratio(t, "input"), ratio(t, "output"),
                Timer.builder("sluice.queue.wait").description("Time queued requests waited for admission")
                        .tags(t).serviceLevelObjectives(WAIT_BUCKETS).register(registry));
    }

    private Counter fallbacks(String profile) {
        return Counter.builder("sluice.fallbacks").description("Requests that ran on a deployment other than the first choice")
                .tag("profile", profile).register(registry);
    }

    private Counter estimated(Tags t, String type) {
        return Counter.builder("sluice.estimate.tokens").description(
                "Tokens reserved by the estimate, for answered requests whose usage the provider reported")
                .tags(t).tag("type", type).register(registry);
    }

    private Counter reported(Tags t, String type) {
        return Counter.builder("sluice.estimate.actual.tokens").description(
                "Tokens the provider reported for the same requests as sluice_estimate_tokens")
                .tags(t).tag("type", type).register(registry);
    }

    private DistributionSummary ratio(Tags t, String type) {
        return DistributionSummary.builder("sluice.estimate.ratio").description(
                "Provider-reported tokens over estimated tokens, per answered request (1 is exact)")
                .tags(t).tag("type", type).serviceLevelObjectives(RATIO_BUCKETS).register(registry);
    }

    private Counter decision(DecisionKey k) {
        return Counter.builder("sluice.decisions").description(
                "Admission decisions, with the limiter and scope level that refused or queued them")
                .tags("outcome", k.outcome, "limiter", k.limiter, "scope_level", k.scopeLevel, "class", k.cls,
                        "profile", k.profile, "deployment", k.deployment)
                .register(registry);
    }

    private Attempts attempts(AttemptKey k) {
        Tags gen = Tags.of(GenAiNames.OPERATION_NAME, GenAiNames.operationName(k.operation), GenAiNames.PROVIDER_NAME,
                GenAiNames.providerName(k.provider), GenAiNames.REQUEST_MODEL, k.model);
        Tags withError = gen.and(GenAiNames.ERROR_TYPE, k.result == AttemptResult.ANSWERED ? NONE : k.result.wireName());
        return new Attempts(
                Counter.builder("sluice.attempts").description("Provider attempts, by how they ended")
                        .tags("deployment", k.deployment, "provider", k.provider, "result", k.result.wireName())
                        .register(registry),
                Timer.builder("gen_ai.client.operation.duration").description("GenAI operation duration")
                        .tags(withError).serviceLevelObjectives(GenAiNames.DURATION_BUCKETS).register(registry),
                Timer.builder("gen_ai.client.operation.time_to_first_chunk").description(
                        "Time to receive the first chunk of a streamed answer")
                        .tags(gen).serviceLevelObjectives(GenAiNames.DURATION_BUCKETS).register(registry),
                usage(gen, "input"), usage(gen, "output"));
    }

    private DistributionSummary usage(Tags gen, String type) {
        return DistributionSummary.builder("gen_ai.client.token.usage").description(
                "Number of input and output tokens used (unit {token})")
                .tags(gen).tag(GenAiNames.TOKEN_TYPE, type).serviceLevelObjectives(GenAiNames.TOKEN_BUCKETS).register(registry);
    }

    private Throttles throttles(ThrottleKey k) {
        Tags t = Tags.of("provider", k.provider, "deployment", k.deployment, "limiter", k.limiter);
        return new Throttles(
                Counter.builder("sluice.provider.throttled").description("Provider 429s, by the limit the provider named")
                        .tags(t).register(registry),
                Timer.builder("sluice.provider.retry_after").description("Retry-after hints given with provider 429s")
                        .tags(t).serviceLevelObjectives(RETRY_AFTER_BUCKETS).register(registry));
    }

    private Counter cacheReads(CacheKey k) {
        return Counter.builder("sluice.cache_read.tokens").description(
                "Prompt tokens read from the provider's cache; counted=false is input the provider's limit never saw")
                .tags("deployment", k.deployment, "counted", Boolean.toString(k.counted)).register(registry);
    }

    private static Duration[] millis(long... ms) {
        Duration[] out = new Duration[ms.length];
        for (int i = 0; i < ms.length; i++) {
            out[i] = Duration.ofMillis(ms[i]);
        }
        return out;
    }
}
