package dev.sluice.runtime.request;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.Explanation;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.RequestPath;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.deploy.LiveDeployments;
import dev.sluice.runtime.config.Price;
import dev.sluice.runtime.config.Prices;
import dev.sluice.runtime.control.Pause;
import dev.sluice.runtime.control.Pauses;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.SpanIds;
import dev.sluice.runtime.event.TokenCounts;
import dev.sluice.runtime.routing.Headroom;
import dev.sluice.runtime.routing.RouteChoice;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.ProviderSignal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * One request from arrival to its answer, without sockets: the transport (the gateway's event
 * loop, the simulator's virtual time) tells it what it learns ({@link #identified}, {@link #planned}),
 * asks it for each attempt's capacity ({@link #admit}), ends each attempt through
 * {@link Attempt#finish}, and ends the request once ({@link #answered} or {@link #clientGone}).
 * Every rule about what follows (what is charged, when to retry, what adaptive control and the
 * estimator learn, what is recorded) lives here and in the types it uses. Used on the request's
 * thread only.
 */
public final class RequestLifecycle {

    private static final String NO_DECISION = "none";

    private final SluiceRuntime runtime;
    private final String traceId;
    /** This request's own span: with the trace id it names the request in the ledger (a trace may hold many). */
    private final String spanId = SpanIds.random();
    private String parentSpanId;
    private final RequestThread thread;
    private final long receivedAtNanos;
    private final long receivedAtEpochMillis;
    private String operation = "unknown";
    private Caller caller;
    private RequestPlan plan;
    private boolean streaming;
    /** The attempt admitted and not finished; or a retry waiting to be sent. */
    private Attempt current;
    private DeploymentConfig lastDeployment;
    private List<AttemptEvent> attemptEvents;
    private List<String> tried = List.of();
    /**
     * Shared provider scopes that refused this request (their bucket locally, or a provider 429
     * naming them): no deployment under one is a fallback. Null while none did.
     */
    private List<String> exhaustedScopes;
    private String decision = NO_DECISION;
    private Rejection rejection;
    private long queueWaitNanos;
    /** Why the request waits or waited, as the governor judged when it queued it. */
    private Explanation waitExplanation;
    /** Takes the request out of its queue while its admission is pending; null otherwise. */
    private Decision.Withdrawal pendingWithdrawal;
    private long queuedAtNanos;
    private String mode;
    private boolean brownout;
    private boolean borrowed;
    private String fallback;
    /** Why the next admission is asked for on another deployment; null when it is not a move. */
    private String moveReason;
    /** When the last choice after a failure found no other deployment: the rule that forbade one. */
    private RouteChoice.Nowhere fallbackForbidden;
    private int attempts;
    private long firstContentAtNanos = -1;
    private int responseStatus;
    private long usageIn;
    private long usageOut;
    private long usageCacheRead;
    /** What the settled attempts cost, and what the first admission reserved, in micro-dollars. */
    private long usageCostMicros;
    private long estimatedCostMicros;
    private boolean usageReported = true;
    private boolean gone;
    private boolean ended;
    /** An answer sent while its attempt was still open: the request ends when the attempt does. */
    private Runnable pendingEnd;

    private RequestLifecycle(SluiceRuntime runtime, String traceId, RequestThread thread) {
        this.runtime = runtime;
        this.traceId = Objects.requireNonNull(traceId, "traceId");
        this.thread = Objects.requireNonNull(thread, "thread");
        this.receivedAtNanos = runtime.clock().nanos();
        this.receivedAtEpochMillis = runtime.clock().epochMillis();
    }

    /** For {@link SluiceRuntime#arrive}. */
    public static RequestLifecycle arrive(SluiceRuntime runtime, String traceId, RequestThread thread) {
        return new RequestLifecycle(runtime, traceId, thread);
    }

    public String traceId() {
        return traceId;
    }

    SluiceRuntime runtime() {
        return runtime;
    }

    /** The caller's {@code traceparent} named {@code spanId} (16 lowercase hex digits) as this request's parent. */
    public void parentSpan(String spanId) {
        this.parentSpanId = Objects.requireNonNull(spanId, "spanId");
    }

    /** The request asks for {@code operation} ({@code openai.chat} ...). */
    public void operation(String name) {
        this.operation = Objects.requireNonNull(name, "operation");
    }

    /** The request's key resolved to {@code who}. */
    public void identified(Caller who) {
        this.caller = Objects.requireNonNull(who, "caller");
    }

    /** Quoted and classified: from now on it can be admitted. */
    public void planned(RequestPlan p) {
        this.plan = Objects.requireNonNull(p, "plan");
        this.streaming = p.streaming();
        this.caller = p.caller();
    }

    RequestPlan planned() {
        return plan;
    }

    /** Whether the client went away. */
    public boolean gone() {
        return gone;
    }

    /** Whether the request has ended (answered, or left by its client). */
    public boolean ended() {
        return ended;
    }

    /**
     * Asks for capacity for the next attempt on the deployment the routing policy chooses.
     * {@code then} runs on the request's thread with the answer, at once when the store answers
     * in place and the request need not wait; not at all when the client has gone meanwhile
     * (whatever was admitted for it is released).
     */
    public void admit(Consumer<Admission> then) {
        if (plan == null) {
            throw new IllegalStateException("admit before planned: " + traceId);
        }
        Caller c = plan.caller();
        long out = plan.estimate().outputTokens();
        // Amounts only: what the routing policy asks each deployment's buckets to hold.
        Demand amounts = new Demand(plan.estimate().inputTokens(), out, plan.streaming());
        List<String> before = ruledOut();
        String movedFor = moveReason;
        moveReason = null;
        long askedAt = runtime.clock().nanos();
        // The choice reads the deployments' buckets, so it is made where admission is: off the request's thread
        // when the store waits on the network. Pauses and service times are thread-safe.
        runtime.storeCalls().call(() -> {
            RouteChoice choice = runtime.routing().choose(plan, before,
                    id -> runtime.governor().hasHeadroom(id, plan.trafficClass(), amounts));
            if (!(choice instanceof RouteChoice.To to)) {
                return new Routed(choice, null, null);
            }
            DeploymentConfig d = to.deployment();
            RequestPath path = new RequestPath(c.org(), c.tenant(), c.team(), c.apiKeyId(), plan.profile().id(), d.id());
            Optional<Pause> paused = runtime.pauses().applying(path,
                    runtime.governor().config().providerScopesOf(d.id()), runtime.clock().epochMillis());
            if (paused.isPresent()) {
                // Before the governor: a paused scope holds nothing and waits for nothing.
                return new Routed(to, null, Pauses.rejection(paused.get(), runtime.clock().epochMillis()));
            }
            // The call's own expected duration, so that a request that cannot finish by its deadline is not queued.
            // The estimate priced on this deployment: reserved on the path's money caps with the tokens.
            long cost = price(d).costMicros(plan.estimate().inputTokens(), out, 0);
            Demand demand = new Demand(plan.estimate().inputTokens(), out, plan.streaming(),
                    runtime.serviceTimes().predictNanos(serviceRoute(d), out), cost);
            if (estimatedCostMicros == 0) {
                estimatedCostMicros = cost;
            }
            AdmissionRequest request = new AdmissionRequest(traceId, path, demand, plan.trafficClass(),
                    plan.deadlineNanos());
            // A warm-up that starts on the tenant's first traffic paces its buckets before this one is admitted.
            runtime.warmups().onArrival(c.tenant());
            return new Routed(to, runtime.governor().admit(request), null);
        }, thread, (routed, failure) -> {
            if (failure != null) {
                storeFailed(then);
                return;
            }
            if (!(routed.choice() instanceof RouteChoice.To to)) {
                // Before any attempt a profile always has its first choice; after one, a move was asked for only
                // when the policy allowed one.
                throw new IllegalStateException("no deployment for " + traceId + ": "
                        + ((RouteChoice.Nowhere) routed.choice()).reason());
            }
            DeploymentConfig d = to.deployment();
            lastDeployment = d;
            if (movedFor != null) {
                fallback = movedFor;
            } else {
                to.fallbackReason().ifPresent(r -> fallback = r);
            }
            if (routed.paused() != null) {
                refused(routed.paused(), askedAt, d, then);
                return;
            }
            decided(routed.decision(), d, askedAt, then);
        });
    }

    /**
     * The routing policy's choice and, when it chose a deployment, the governor's decision there,
     * or the operator's pause that refused it before the governor was asked.
     */
    private record Routed(RouteChoice choice, Decision decision, Rejection paused) {}

    private void decided(Decision decided, DeploymentConfig d, long askedAt, Consumer<Admission> then) {
        switch (decided) {
            case Decision.Admitted a -> {
                runtime.counters().recordReservationOpened();
                admitted(a, d, then);
            }
            case Decision.Rejected r -> refused(r.rejection(), askedAt, d, then);
            case Decision.Queued q -> {
                decision = "queued";
                waitExplanation = q.explanation();
                pendingWithdrawal = q.withdrawal();
                queuedAtNanos = askedAt;
                q.outcome().whenComplete((f, err) -> {
                    // Counted where it was granted, so that open leases and open reservations agree at every instant.
                    if (f instanceof Decision.Admitted) {
                        runtime.counters().recordReservationOpened();
                    }
                    thread.execute(() -> {
                        pendingWithdrawal = null;
                        if (err != null) {
                            storeFailed(then);
                        } else if (f instanceof Decision.Admitted a) {
                            admitted(a, d, then);
                        } else {
                            refused(((Decision.Rejected) f).rejection(), askedAt, d, then);
                        }
                    });
                });
            }
        }
    }

    private void admitted(Decision.Admitted a, DeploymentConfig chosen, Consumer<Admission> then) {
        Optional<LiveDeployments.Version> version = runtime.deployments().open(chosen.id());
        if (version.isEmpty()) {
            // A change removed the deployment between the choice and the admission: nothing was sent, so nothing is
            // charged, and the request is routed again as if it had waited there.
            runtime.storeCalls().run(a.reservation()::release);
            runtime.counters().recordReservationReleased();
            refused(Rejection.deploymentRemoved(plan.trafficClass(),
                    dev.sluice.limits.Scope.of(dev.sluice.limits.ScopeLevel.PROVIDER_DEPLOYMENT, chosen.id())),
                    runtime.clock().nanos(), chosen, then);
            return;
        }
        // The version in force: one admitted after waiting through a change that replaced its deployment goes to the new one.
        DeploymentConfig d = version.get().config();
        lastDeployment = d;
        Attempt attempt = new Attempt(this, attempts + 1, version.get(), a.reservation(), a.queuedNanos(), a.brownout(),
                false);
        if (gone) {
            // The client left while this was decided: nothing was sent, so nothing is charged.
            end(attempt, new Charge.Release());
            return;
        }
        if (attempts == 0) {
            decision = a.queuedNanos() > 0 ? "queued" : "admitted";
            queueWaitNanos = a.queuedNanos();
            mode = runtime.controller(d.id()).map(m -> m.mode().wireName()).orElse(null);
            brownout = a.brownout();
            borrowed = a.borrowed();
        }
        attempts++;
        current = attempt;
        then.accept(new Admission.Admitted(attempt));
    }

    private void refused(Rejection r, long askedAt, DeploymentConfig d, Consumer<Admission> then) {
        if (gone) {
            return;
        }
        if (attempts == 0 && FallbackTriggers.movable(r)) {
            // Refused at once by this deployment's own buckets or lanes, or its provider scope's: the next allowed
            // deployment (outside that scope) may have room.
            tried = append(tried, d.id());
            r.scope().filter(s -> s.level() == dev.sluice.limits.ScopeLevel.PROVIDER_SCOPE)
                    .ifPresent(s -> exhausted(s.id()));
            if (moveElsewhere(FallbackTriggers.DEPLOYMENT_REMOVED.equals(r.code()) ? FallbackTriggers.DEPLOYMENT_REMOVED
                    : FallbackTriggers.LOCAL_WAIT)) {
                admit(then);
                return;
            }
        } else if (plan.profile().hasFallbacks()) {
            fallbackForbidden = new RouteChoice.Nowhere(FallbackTriggers.SHARED_LIMIT, r.scopeName()
                    + " limits every deployment of profile " + plan.profile().id());
        }
        queueWaitNanos = "queued".equals(decision) ? runtime.clock().nanos() - askedAt : 0;
        decision = "rejected";
        rejection = r;
        mode = runtime.controller(d.id()).map(m -> m.mode().wireName()).orElse(null);
        runtime.counters().recordLocalRejection();
        then.accept(new Admission.Refused(r));
    }

    /**
     * A refusal decided before the governor was asked: recorded as the governor's
     * own would be. Nothing is held.
     */
    public void refused(Rejection r) {
        decision = "rejected";
        rejection = Objects.requireNonNull(r, "rejection");
        lastDeployment = plan == null ? null : runtime.config().deployments().get(plan.profile().deployment());
        runtime.counters().recordLocalRejection();
    }

    /**
     * Why the request waited in its queue, when it did: the bucket and dimension short when it
     * arrived and the predicted wait against its budget.
     */
    public Optional<Explanation> waitExplanation() {
        return Optional.ofNullable(waitExplanation);
    }

    /** The deployment's operating mode when the request was admitted or refused, if it has an adaptive controller. */
    public Optional<String> mode() {
        return Optional.ofNullable(mode);
    }

    /** The key the call-duration predictor learns under: the deployment's speed and the profile and class's answers. */
    private String serviceRoute(DeploymentConfig d) {
        return d.id() + "|" + plan.estimateKey();
    }

    /** The deployment of the last admission asked for; the profile's own before any. */
    public DeploymentConfig lastDeployment() {
        if (lastDeployment != null) {
            return lastDeployment;
        }
        if (plan == null) {
            throw new IllegalStateException("no deployment before planned: " + traceId);
        }
        return runtime.config().deployments().get(plan.profile().deployment());
    }

    private void storeFailed(Consumer<Admission> then) {
        if (!gone) {
            then.accept(new Admission.StoreUnavailable());
        }
    }

    /** The attempt's first body bytes arrived: the request's time to first token, if it is the first. */
    void firstContent(long atNanos) {
        if (firstContentAtNanos < 0) {
            firstContentAtNanos = atNanos;
        }
    }

    /** {@link Attempt#finish}: the one place an attempt's end is handled. */
    AfterAttempt finished(Attempt a, AttemptOutcome outcome, boolean alreadyFed) {
        long now = runtime.clock().nanos();
        if (a == current) {
            current = null;
        }
        tried = append(tried, a.deployment().id());
        Optional<ProviderSignal> signal = signal(outcome);
        long latency = a.sent() ? now - a.sentAtNanos() : 0;
        if (signal.isPresent() && !alreadyFed) {
            long toHead = a.headAtNanos() >= 0 ? a.headAtNanos() - a.sentAtNanos() : latency;
            runtime.feed(a.deployment().id(), signal.get(), toHead, plan.trafficClass());
        }
        if (outcome instanceof AttemptOutcome.Throttled t) {
            // A 429 naming a quota shared above this deployment: its other deployments would meet it too.
            runtime.scopeNamedBy(a.deployment().id(), t.signal()).ifPresent(s -> exhausted(s.id()));
        }
        if (!gone) {
            Optional<String> trigger = FallbackTriggers.afterAttempt(outcome, responseStatus != 0);
            boolean inTime = !plan.hasDeadline() || now < plan.deadlineNanos();
            if (trigger.isPresent() && inTime && moveElsewhere(trigger.get())) {
                // The next attempt runs elsewhere, under that deployment's own buckets: this one's reservation ends
                // now, charged as its outcome says, and never overlaps the next.
                if (outcome instanceof AttemptOutcome.Throttled) {
                    runtime.counters().recordProviderRejection();
                }
                Charge charge = Charge.of(outcome, plan.estimate(), plan.profile(), price(a.deployment()), a.reservationUsed());
                end(a, charge);
                emit(a, outcome, charge instanceof Charge.Release ? Settlement.RELEASED : Settlement.SETTLED,
                        usageOf(outcome, charge), latency, OptionalLong.empty());
                return new AfterAttempt.Reroute(trigger.get());
            }
            // A retry is a new attempt: none goes to a version a change retired.
            OptionalLong delay = a.version().retired() ? OptionalLong.empty() : retryDelay(outcome, a, now);
            if (delay.isPresent()) {
                runtime.counters().recordGatewayRetry();
                emit(a, outcome, Settlement.HELD, Optional.empty(), latency, delay);
                Attempt next = new Attempt(this, a.number() + 1, a.version(), a.reservation(), 0, a.brownout(), true);
                attempts++;
                current = next;
                return new AfterAttempt.Retry(delay.getAsLong(), next);
            }
            if (outcome instanceof AttemptOutcome.Throttled) {
                runtime.counters().recordProviderRejection();
            }
        }
        if (outcome instanceof AttemptOutcome.Answered answered && a.sent()) {
            // A stream's first content is seen apart from the rest; a whole answer shows only its total.
            long ttft = plan.streaming() && a.firstContentAtNanos() >= 0 ? a.firstContentAtNanos() - a.sentAtNanos() : -1;
            runtime.serviceTimes().learn(serviceRoute(a.deployment()), latency, ttft, answered.usage().outputTokens());
        }
        Charge charge = Charge.of(outcome, plan.estimate(), plan.profile(), price(a.deployment()), a.reservationUsed());
        Optional<ObservedUsage> learnable = Charge.learnable(outcome);
        learnable.ifPresent(u -> runtime.estimator().learn(plan.profile().estimatorProfile(), plan.estimateKey(),
                plan.estimate(), u.toActualTokens()));
        end(a, charge);
        emit(a, outcome, charge instanceof Charge.Release ? Settlement.RELEASED : Settlement.SETTLED,
                usageOf(outcome, charge), latency, OptionalLong.empty());
        if (pendingEnd != null && !ended) {
            Runnable close = pendingEnd;
            pendingEnd = null;
            close.run();
        }
        return AfterAttempt.DONE;
    }

    /**
     * Whether the routing policy allows a deployment not yet tried; if so the next admission is
     * asked for there ({@code reason} is the request's fallback reason), and if not the rule that
     * forbade it is kept for the answer.
     */
    private boolean moveElsewhere(String reason) {
        switch (runtime.routing().choose(plan, ruledOut(), Headroom.EVERYWHERE)) {
            case RouteChoice.To to -> {
                moveReason = reason;
                fallbackForbidden = null;
                return true;
            }
            case RouteChoice.Nowhere n -> {
                boolean sharedScope = exhaustedScopes != null && RouteChoice.Nowhere.NO_OTHER.equals(n.rule())
                        && runtime.routing().choose(plan, tried, Headroom.EVERYWHERE) instanceof RouteChoice.To;
                fallbackForbidden = sharedScope
                        ? new RouteChoice.Nowhere(FallbackTriggers.SAME_PROVIDER_SCOPE, "every other deployment of profile "
                                + plan.profile().id() + " is under provider scope " + String.join(", ", exhaustedScopes)
                                + ", which refused it")
                        : n;
                return false;
            }
        }
    }

    /** {@code scope} (a provider scope id) refused this request: none of its deployments is a fallback. */
    private void exhausted(String scope) {
        if (exhaustedScopes == null) {
            exhaustedScopes = new ArrayList<>(1);
        }
        if (!exhaustedScopes.contains(scope)) {
            exhaustedScopes.add(scope);
        }
    }

    /**
     * What the routing policy may not choose: the deployments tried, and every deployment under a
     * shared provider scope that refused the request (a move there is no fallback).
     */
    private List<String> ruledOut() {
        if (exhaustedScopes == null) {
            return tried;
        }
        List<String> out = new ArrayList<>(tried);
        for (DeploymentConfig d : runtime.config().deployments().values()) {
            if (!out.contains(d.id()) && d.providerScopes().stream().anyMatch(exhaustedScopes::contains)) {
                out.add(d.id());
            }
        }
        return out;
    }

    /**
     * The attempt just admitted cannot be sent on its deployment after all (the transport cannot
     * put this request in that provider's format): it ends with nothing sent and nothing charged,
     * and the answer is whether another allowed deployment may take it. True: ask {@link #admit}
     * again (the move's reason is {@code untranslatable}); false: the transport answers with its
     * own error.
     */
    public boolean unsendable(Attempt a) {
        a.finish(new AttemptOutcome.ClientGone(false, Optional.empty()));
        return !gone && moveElsewhere(FallbackTriggers.UNTRANSLATABLE);
    }

    /**
     * Whether a fallback was allowed for this request, as its refusal says: true once an attempt
     * ran or was asked for elsewhere, or while a deployment was still allowed; false with
     * {@link #fallbackForbiddenBy} when the last look found none.
     */
    public boolean fallbackAllowed() {
        return fallback != null || (fallbackForbidden == null && plan != null && plan.profile().hasFallbacks());
    }

    /** The rule that forbade a fallback, when {@link #fallbackAllowed()} is false. */
    public Optional<String> fallbackForbiddenBy() {
        if (fallbackAllowed()) {
            return Optional.empty();
        }
        return Optional.of(fallbackForbidden != null ? fallbackForbidden.rule() : RouteChoice.Nowhere.NO_OTHER);
    }

    /** Why the request ran on a deployment other than its first choice, if it did. */
    public Optional<String> fallbackReason() {
        return Optional.ofNullable(fallback);
    }

    /** Whether and when {@code outcome} is tried again, holding the reservation; empty to answer now. */
    private OptionalLong retryDelay(AttemptOutcome outcome, Attempt a, long now) {
        int attemptsSoFar = a.number();
        long classBudget = runtime.config().classes().get(plan.trafficClass()).maxQueueWait().toMillis();
        long deadlineLeft = plan.hasDeadline() ? (plan.deadlineNanos() - now) / 1_000_000 : Long.MAX_VALUE;
        OptionalLong delay = switch (outcome) {
            case AttemptOutcome.Throttled t -> RetryRule.afterThrottle(t.signal(), classBudget, deadlineLeft);
            // Only while nothing of the answer has reached the client and the provider produced nothing.
            case AttemptOutcome.Failed f when responseStatus == 0 && f.produced().isEmpty() ->
                    RetryRule.afterFault(f.signal(), attemptsSoFar, classBudget, deadlineLeft);
            default -> OptionalLong.empty();
        };
        if (delay.isPresent() && a.version().retryBudget().tryRetry()) {
            return delay;
        }
        return OptionalLong.empty();
    }

    /** The price of this request's model on {@code d}: what its tokens cost there. */
    private Price price(DeploymentConfig d) {
        Prices prices = runtime.config().prices();
        if (prices.byName().isEmpty()) {
            return Price.FREE;
        }
        return prices.of(d.id(), plan.profile().on(d.id()).model());
    }

    /** Settles or releases {@code a}'s reservation, as a store call. */
    private void end(Attempt a, Charge charge) {
        var reservation = a.reservation();
        switch (charge) {
            case Charge.Settle s -> {
                usageCostMicros += s.usage().costMicros();
                runtime.storeCalls().run(() -> reservation.settle(s.usage()));
                runtime.counters().recordReservationSettled();
                a.version().close();
            }
            case Charge.Release r -> {
                runtime.storeCalls().run(reservation::release);
                runtime.counters().recordReservationReleased();
                a.version().close();
            }
            case Charge.Invalid i -> {
                // Decided in the store call: a fleet's allowance is counted in the shared store. Either settlement
                // costs nothing, so only the request's own count waits for the answer.
                var kind = a.deployment().kind();
                int perMinute = runtime.config().server().invalidRefundsPerMinute();
                long now = runtime.clock().nanos();
                runtime.storeCalls().run(() -> reservation.settle(i.on(kind, () -> runtime.invalidRefunds()
                        .refund(plan.caller().org(), plan.caller().tenant(), perMinute, now)).usage()));
                runtime.counters().recordReservationSettled();
                a.version().close();
            }
        }
    }

    /**
     * The transport has started its answer with {@code status} (a stream's head): if the client
     * leaves later, the request is still recorded with that status.
     */
    public void responseStarted(int status) {
        responseStatus = status;
    }

    /**
     * The request is answered: its last byte went to the client. Ends it, or, while an attempt is
     * still open (a whole answer is written before its attempt is finished), ends it when that
     * attempt finishes. A second answer is counted as a bug ({@link RequestCounters#duplicateAnswers()}).
     *
     * @param status the HTTP status sent
     * @param code the error code, for an error answer
     * @param retryAfterMillis the retry hint sent, if any
     */
    public void answered(int status, Optional<String> code, OptionalLong retryAfterMillis) {
        if (ended || pendingEnd != null) {
            runtime.counters().recordDuplicateAnswer();
            return;
        }
        responseStatus = status;
        if (current != null && !current.finished()) {
            // Written before the bookkeeping: the request ends once its attempt has been charged and recorded.
            pendingEnd = () -> close(code, retryAfterMillis);
            return;
        }
        close(code, retryAfterMillis);
    }

    /**
     * The client went away before its answer was complete. An attempt still in flight must be
     * finished first (with {@link AttemptOutcome.ClientGone}); one waiting to be sent again is
     * ended here, and a queued admission is given back when it completes.
     */
    public void clientGone() {
        if (ended || gone || pendingEnd != null) {
            return;
        }
        gone = true;
        Decision.Withdrawal w = pendingWithdrawal;
        if (w != null) {
            // Still queued: it leaves the queue now, holding and charged nothing. Should the governor
            // have admitted it meanwhile, the admission arrives here and is released (admitted()).
            pendingWithdrawal = null;
            queueWaitNanos = runtime.clock().nanos() - queuedAtNanos;
            runtime.storeCalls().run(w::withdraw);
        }
        if (current != null && !current.finished()) {
            current.finish(new AttemptOutcome.ClientGone(current.sent(), Optional.empty()));
        }
        if (responseStatus == 0) {
            responseStatus = RequestEvent.CLIENT_CLOSED_REQUEST;
        }
        close(Optional.empty(), OptionalLong.empty());
    }

    private void close(Optional<String> code, OptionalLong retryAfterMillis) {
        ended = true;
        runtime.counters().recordAnswered();
        RequestEventSink sink = runtime.events();
        if (sink == RequestEventSink.NONE) {
            return;
        }
        long now = runtime.clock().nanos();
        Optional<String> gatewayDecision = Optional.ofNullable(rejection).map(r -> r.decision().wireName());
        Optional<Decider> decider = rejection != null ? Optional.of(Decider.of(rejection.explanation()))
                : Optional.ofNullable(waitExplanation).map(Decider::of);
        Optional<String> errorCode = code.isPresent() ? code : Optional.ofNullable(rejection).map(Rejection::code);
        DeploymentConfig d = lastDeployment;
        RequestEvent e = new RequestEvent(traceId, spanId, receivedAtEpochMillis, operation,
                Optional.ofNullable(caller),
                Optional.ofNullable(plan).map(p -> p.profile().id()),
                Optional.ofNullable(plan).map(p -> p.trafficClass().wireName()),
                Optional.ofNullable(d).map(DeploymentConfig::id),
                Optional.ofNullable(d).map(x -> x.kind().wireName()),
                Optional.ofNullable(plan).filter(p -> d != null).map(p -> p.profile().model()),
                d == null ? Map.of() : d.scope(), streaming,
                plan == null ? TokenCounts.NONE
                        : new TokenCounts(plan.estimate().inputTokens(), plan.estimate().outputTokens(),
                                plan.estimate().expectedCacheReadTokens(), estimatedCostMicros),
                new TokenCounts(usageIn, usageOut, usageCacheRead, usageCostMicros), usageReported && attempts > 0, decision,
                gatewayDecision, decider, errorCode, queueWaitNanos, Optional.ofNullable(mode), brownout, borrowed,
                attempts,
                Optional.ofNullable(fallback), responseStatus, retryAfterMillis, now - receivedAtNanos,
                firstContentAtNanos < 0 ? OptionalLong.empty() : OptionalLong.of(firstContentAtNanos - receivedAtNanos),
                attemptEvents == null ? List.of() : attemptEvents, Optional.ofNullable(parentSpanId));
        sink.onRequest(e);
    }

    private void emit(Attempt a, AttemptOutcome outcome, Settlement settlement, Optional<ObservedUsage> used,
            long latency, OptionalLong retryDelay) {
        Optional<ObservedUsage> u = used;
        if (u.isPresent()) {
            ObservedUsage x = u.get();
            usageIn += x.inputTokens();
            usageOut += x.outputTokens();
            usageCacheRead += x.cacheReadTokens();
            // A charge Sluice had to make up (a timeout's estimated input, a stream's count) is not the provider's word.
            usageReported &= x.reportedByProvider();
        }
        RequestEventSink sink = runtime.events();
        if (sink == RequestEventSink.NONE) {
            return;
        }
        Optional<ProviderSignal> s = signal(outcome);
        DeploymentConfig d = a.deployment();
        AttemptEvent e = new AttemptEvent(traceId, a.number(), d.id(), d.kind().wireName(), plan.profile().model(),
                d.scope(), a.sent() ? a.sentAtEpochMillis() : runtime.clock().epochMillis(), result(outcome),
                s.map(ProviderSignal::httpStatus).orElse(0), s.map(ProviderSignal::reason).orElse("client_gone"),
                s.flatMap(ProviderSignal::limitHit).map(LimitKind::limiterName),
                s.map(ProviderSignal::retryAfterMillis).orElse(OptionalLong.empty()),
                new TokenCounts(plan.estimate().inputTokens(), plan.estimate().outputTokens(),
                        plan.estimate().expectedCacheReadTokens()),
                u.map(x -> new TokenCounts(x.inputTokens(), x.outputTokens(), x.cacheReadTokens()))
                        .orElse(TokenCounts.NONE),
                u.map(ObservedUsage::reportedByProvider).orElse(false),
                plan.profile().cacheReadCountsAgainstInputLimit(), settlement, latency,
                a.firstContentAtNanos() >= 0 ? OptionalLong.of(a.firstContentAtNanos() - a.sentAtNanos())
                        : OptionalLong.empty(),
                retryDelay);
        if (attemptEvents == null) {
            attemptEvents = new ArrayList<>(2);
        }
        attemptEvents.add(e);
        sink.onAttempt(e);
    }

    /** What an attempt used, for the record: the provider's report or Sluice's count, else what was charged. */
    private static Optional<ObservedUsage> usageOf(AttemptOutcome outcome, Charge charge) {
        Optional<ObservedUsage> u = switch (outcome) {
            case AttemptOutcome.Answered a -> Optional.of(a.usage());
            case AttemptOutcome.Failed f -> f.produced();
            case AttemptOutcome.ClientGone g -> g.produced();
            default -> Optional.empty();
        };
        if (u.isPresent()) {
            return u;
        }
        if (charge instanceof Charge.Settle s && (s.usage().inputTokens() > 0 || s.usage().outputTokens() > 0)) {
            return Optional.of(new ObservedUsage(s.usage().inputTokens(), s.usage().outputTokens(), 0, 0, false));
        }
        return Optional.empty();
    }

    private static Optional<ProviderSignal> signal(AttemptOutcome outcome) {
        return switch (outcome) {
            case AttemptOutcome.Answered a -> Optional.of(a.signal());
            case AttemptOutcome.Throttled t -> Optional.of(t.signal());
            case AttemptOutcome.Refused r -> Optional.of(r.signal());
            case AttemptOutcome.Failed f -> Optional.of(f.signal());
            case AttemptOutcome.NeverSent n -> Optional.of(n.signal());
            case AttemptOutcome.ClientGone g -> Optional.empty();
        };
    }

    private static AttemptResult result(AttemptOutcome outcome) {
        return switch (outcome) {
            case AttemptOutcome.Answered a -> AttemptResult.ANSWERED;
            case AttemptOutcome.Throttled t -> AttemptResult.THROTTLED;
            case AttemptOutcome.Refused r -> AttemptResult.REFUSED;
            case AttemptOutcome.Failed f -> AttemptResult.FAILED;
            case AttemptOutcome.ClientGone g -> AttemptResult.CLIENT_GONE;
            case AttemptOutcome.NeverSent n -> AttemptResult.NEVER_SENT;
        };
    }

    private static List<String> append(List<String> list, String item) {
        if (list.isEmpty()) {
            return List.of(item);
        }
        List<String> out = new ArrayList<>(list.size() + 1);
        out.addAll(list);
        out.add(item);
        return out;
    }
}
