package dev.sluice.ledger;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Request and attempt events as the lifecycle makes them, built field by field for tests. */
public final class Events {

    private Events() {}

    public static Request request(String traceId, Instant at) {
        return new Request(traceId, at);
    }

    /** A span id made from a number, so tests can name requests. */
    public static String span(long n) {
        return HexFormat.of().formatHex(java.nio.ByteBuffer.allocate(8).putLong(n).array());
    }

    /** A request event in the making; defaults: an answered, admitted OpenAI chat on deployment openai-east. */
    public static final class Request {
        private final String traceId;
        private String spanId;
        private final long at;
        private String operation = "openai.chat";
        private Optional<Caller> caller = Optional.empty();
        private Optional<String> profile = Optional.of("fast");
        private Optional<String> trafficClass = Optional.of("interactive");
        private Optional<String> deployment = Optional.of("openai-east");
        private Optional<String> provider = Optional.of("openai");
        private Optional<String> providerModel = Optional.of("gpt-4o-mini");
        private Map<String, String> scope = Map.of("region", "eastus", "project", "prod");
        private boolean streaming;
        private TokenCounts estimate = TokenCounts.NONE;
        private TokenCounts usage = TokenCounts.NONE;
        private boolean usageReported = true;
        private String decision = "admitted";
        private Optional<String> gatewayDecision = Optional.empty();
        private Optional<Decider> decider = Optional.empty();
        private Optional<String> code = Optional.empty();
        private long queueWaitNanos;
        private Optional<String> mode = Optional.of("normal");
        private boolean brownout;
        private boolean borrowed;
        private Optional<String> fallback = Optional.empty();
        private int status = 200;
        private OptionalLong retryAfter = OptionalLong.empty();
        private long latencyNanos = 1_000_000;
        private OptionalLong ttft = OptionalLong.empty();
        private final List<AttemptEvent> attempts = new ArrayList<>();

        private Request(String traceId, Instant at) {
            this.traceId = traceId;
            this.spanId = Events.span(traceId.hashCode() & 0xffffffffL);
            this.at = at.toEpochMilli();
        }

        public Request span(String s) {
            spanId = s;
            return this;
        }

        public Request caller(String org, String tenant, String team, String key) {
            caller = Optional.of(new Caller(org, tenant, team, key));
            return this;
        }

        public Request noCaller() {
            caller = Optional.empty();
            return this;
        }

        public Request operation(String op) {
            operation = op;
            return this;
        }

        public Request route(String profile, String deployment, String provider, String model) {
            this.profile = Optional.ofNullable(profile);
            this.deployment = Optional.ofNullable(deployment);
            this.provider = Optional.ofNullable(provider);
            this.providerModel = Optional.ofNullable(model);
            return this;
        }

        public Request scope(Map<String, String> s) {
            scope = s;
            return this;
        }

        public Request trafficClass(String c) {
            trafficClass = Optional.ofNullable(c);
            return this;
        }

        public Request streaming() {
            streaming = true;
            return this;
        }

        public Request estimate(long in, long out, long cache) {
            estimate = new TokenCounts(in, out, cache);
            return this;
        }

        public Request usage(long in, long out, long cache) {
            usage = new TokenCounts(in, out, cache);
            return this;
        }

        public Request usageNotReported() {
            usageReported = false;
            return this;
        }

        public Request decision(String d) {
            decision = d;
            return this;
        }

        public Request refused(String gatewayDecision, String limiter, String scope, String code) {
            this.gatewayDecision = Optional.of(gatewayDecision);
            this.decider = Optional.of(new Decider(limiter, scope, Optional.empty()));
            this.code = Optional.of(code);
            return this;
        }

        public Request gatewayDecision(String gd, String code) {
            this.gatewayDecision = Optional.of(gd);
            this.code = Optional.of(code);
            return this;
        }

        public Request decider(String limiter, String scope, String window) {
            decider = Optional.of(new Decider(limiter, scope, Optional.ofNullable(window)));
            return this;
        }

        public Request decider(Decider d) {
            decider = Optional.of(d);
            return this;
        }

        public Request queued(long waitNanos) {
            decision = "queued";
            queueWaitNanos = waitNanos;
            return this;
        }

        public Request mode(String m) {
            mode = Optional.ofNullable(m);
            return this;
        }

        public Request brownout() {
            brownout = true;
            return this;
        }

        public Request borrowed() {
            borrowed = true;
            return this;
        }

        public Request fallback(String why) {
            fallback = Optional.of(why);
            return this;
        }

        public Request status(int s) {
            status = s;
            return this;
        }

        public Request retryAfter(long ms) {
            retryAfter = OptionalLong.of(ms);
            return this;
        }

        public Request latencyMillis(long ms) {
            latencyNanos = ms * 1_000_000;
            return this;
        }

        public Request ttftMillis(long ms) {
            ttft = OptionalLong.of(ms * 1_000_000);
            return this;
        }

        /** Adds an attempt on this request's deployment. */
        public Attempt attempt(AttemptResult result) {
            return new Attempt(this, attempts.size() + 1, result);
        }

        public RequestEvent build() {
            return new RequestEvent(traceId, spanId, at, operation, caller, profile, trafficClass, deployment, provider,
                    providerModel, scope, streaming, estimate, usage, usageReported, decision, gatewayDecision, decider,
                    code, queueWaitNanos, mode, brownout, borrowed, attempts.size(), fallback, status, retryAfter,
                    latencyNanos, ttft, attempts);
        }
    }

    /** An attempt in the making; defaults: the request's route, status 200, settled, usage reported. */
    public static final class Attempt {
        private final Request request;
        private final int number;
        private final AttemptResult result;
        private String deployment;
        private String provider;
        private String model;
        private int status = 200;
        private String reason = "ok";
        private Optional<String> limitHit = Optional.empty();
        private OptionalLong retryAfter = OptionalLong.empty();
        private TokenCounts estimate = TokenCounts.NONE;
        private TokenCounts usage = TokenCounts.NONE;
        private boolean usageReported = true;
        private boolean cacheCounted = true;
        private Settlement settlement = Settlement.SETTLED;
        private long latencyNanos = 1_000_000;
        private OptionalLong ttft = OptionalLong.empty();
        private OptionalLong retryDelay = OptionalLong.empty();

        private Attempt(Request request, int number, AttemptResult result) {
            this.request = request;
            this.number = number;
            this.result = result;
            this.deployment = request.deployment.orElse("openai-east");
            this.provider = request.provider.orElse("openai");
            this.model = request.providerModel.orElse("gpt-4o-mini");
        }

        public Attempt on(String deployment, String provider, String model) {
            this.deployment = deployment;
            this.provider = provider;
            this.model = model;
            return this;
        }

        public Attempt status(int s, String reason) {
            this.status = s;
            this.reason = reason;
            return this;
        }

        public Attempt limitHit(String limiter, long retryAfterMillis) {
            limitHit = Optional.of(limiter);
            retryAfter = OptionalLong.of(retryAfterMillis);
            return this;
        }

        public Attempt estimate(long in, long out, long cache) {
            estimate = new TokenCounts(in, out, cache);
            return this;
        }

        public Attempt usage(long in, long out, long cache) {
            usage = new TokenCounts(in, out, cache);
            return this;
        }

        public Attempt usageNotReported() {
            usageReported = false;
            return this;
        }

        public Attempt cacheReadsNotCounted() {
            cacheCounted = false;
            return this;
        }

        public Attempt settlement(Settlement s) {
            settlement = s;
            return this;
        }

        public Attempt latencyMillis(long ms) {
            latencyNanos = ms * 1_000_000;
            return this;
        }

        public Attempt ttftMillis(long ms) {
            ttft = OptionalLong.of(ms * 1_000_000);
            return this;
        }

        public Attempt retryDelay(long ms) {
            retryDelay = OptionalLong.of(ms);
            return this;
        }

        /** Adds the attempt to its request and returns the request. */
        public Request done() {
            request.attempts.add(new AttemptEvent(request.traceId, number, deployment, provider, model, request.scope,
                    request.at + number, result, status, reason, limitHit, retryAfter, estimate, usage, usageReported,
                    cacheCounted, settlement, latencyNanos, ttft, retryDelay));
            return request;
        }
    }
}
