package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.adapt.ModeConfig;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.gateway.http.HeaderNames;
import dev.sluice.gateway.http.RejectionView;
import dev.sluice.gateway.translate.TranslationException;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.Admission;
import dev.sluice.runtime.request.Attempt;
import dev.sluice.runtime.request.AttemptOutcome;
import dev.sluice.runtime.request.Deadlines;
import dev.sluice.runtime.request.RequestPlan;
import java.util.Optional;

/**
 * A model call, from its read body to its hand-over upstream: the wire is turned into a
 * {@link RequestPlan} (profile, class, deadline, quote) and a wire plan for the deployment; the
 * lifecycle admits it; each admitted attempt goes out through an {@link UpstreamCall}. No rule
 * about charging, retrying or learning is here: those are the lifecycle's.
 */
final class Exchange {

    final ClientRequest request;
    final GatewayCore core;
    ProfileConfig profile;
    TrafficClass trafficClass;
    TokenEstimate estimate;
    /** The wire plan for the deployment of the attempt in flight. */
    UpstreamPlan plan;
    private DeploymentConfig plannedFor;
    private ObjectNode json;
    private byte[] raw;
    private UpstreamCall call;

    Exchange(ClientRequest request) {
        this.request = request;
        this.core = request.core;
    }

    void onBody(byte[] body) {
        Optional<RequestBody> read = RequestBody.read(request, body);
        if (read.isEmpty()) {
            return;
        }
        this.json = read.get().json();
        this.raw = body;
        this.profile = read.get().profile();
        KeyConfig key = request.key;
        Deadlines.Resolved d = Deadlines.resolve(key.trafficClass(), key.maxClass(), request.req.getHeader(Deadlines.CLASS_HEADER),
                key.deadline(), request.req.getHeader(Deadlines.DEADLINE_HEADER),
                request.req.getHeader(Deadlines.SDK_TIMEOUT_HEADER), core.config.classes());
        switch (d) {
            case Deadlines.Invalid bad -> request.fail(400, bad.code(), bad.message(), Optional.of(bad.header()));
            case Deadlines.Valid ok -> {
                trafficClass = ok.trafficClass();
                long deadline = ok.deadlineNanosFrom(core.clock.nanos());
                RequestBody.quote(request, json, profile, trafficClass, e -> onEstimate(e, deadline));
            }
        }
    }

    private void onEstimate(TokenEstimate quoted, long deadlineNanos) {
        estimate = quoted;
        DeploymentConfig first = core.config.deployments().get(profile.deployment());
        if (!planFor(first)) {
            return;
        }
        KeyConfig key = request.key;
        RequestPlan requestPlan = new RequestPlan(request.traceId, request.route.operation().eventName(),
                new Caller(key.org(), key.tenant(), key.team(), key.id()), profile, trafficClass, deadlineNanos,
                estimate, plan.streaming());
        request.lifecycle.planned(requestPlan);
        request.lifecycle.admit(this::onAdmission);
    }

    /** Builds the wire plan for {@code d}; false (and the client answered) when the request cannot go there. */
    private boolean planFor(DeploymentConfig d) {
        if (d == plannedFor) {
            return true;
        }
        try {
            plan = UpstreamPlan.of(request.route.operation(), json, raw, profile, d, request.req.query());
            plannedFor = d;
            return true;
        } catch (UpstreamPlan.Unsupported e) {
            request.fail(400, "unsupported_route", e.getMessage(), Optional.of("model"));
        } catch (TranslationException e) {
            request.fail(400, "invalid_request", e.getMessage(), Optional.ofNullable(e.param()));
        }
        return false;
    }

    private void onAdmission(Admission a) {
        switch (a) {
            case Admission.Admitted ad -> admitted(ad.attempt());
            case Admission.Refused r -> rejectLocally(r.rejection(), request.lifecycle.lastDeployment());
            case Admission.StoreUnavailable u -> {
                request.resp.putHeader("retry-after", "1");
                request.fail(503, "quota_store_unavailable",
                        "Sluice cannot reach its quota store; the request was not sent.", Optional.empty());
            }
        }
    }

    private void admitted(Attempt attempt) {
        if (!planFor(attempt.deployment())) {
            // The routing policy chose a deployment this request cannot be sent to (the client has its 400):
            // nothing left, so the reservation is given back whole.
            attempt.finish(new AttemptOutcome.ClientGone(false, Optional.empty()));
            return;
        }
        if (attempt.queuedNanos() > 0) {
            request.resp.putHeader("x-sluice-queued-ms", Long.toString(attempt.queuedNanos() / 1_000_000));
            request.lifecycle.waitExplanation().ifPresent(x -> request.resp.headers().set(HeaderNames.EXPLANATION,
                    HeaderNames.explanation(x, request.lifecycle.mode())));
        }
        if (attempt.brownout()) {
            // The gateway's configuration does not tune modes, so the factor is the adaptive default (0.5).
            plan = plan.capOutput(request.route.operation(), ModeConfig.DEFAULT_BROWNOUT_MAX_TOKENS_FACTOR,
                    estimate.outputTokens());
            request.resp.putHeader("x-sluice-brownout", "true");
        }
        request.state = ClientRequest.State.UPSTREAM;
        call = new UpstreamCall(this, attempt);
        call.dispatch();
    }

    void rejectLocally(Rejection r, DeploymentConfig d) {
        KeyConfig key = request.key;
        request.reject(new RejectionView(r.decision(), r.code(), r.message(), r.limiterName(), r.scopeName(),
                d.kind().wireName(), profile.id(), profile.model(), r.retryAfterMillis(), r.retryable(), key.tenant(),
                key.id(), trafficClass.wireName(), estimate.inputTokens(), estimate.outputTokens(), request.traceId,
                Optional.of(r.explanation()), request.lifecycle.mode()));
    }

    void clientGone() {
        if (call != null) {
            call.clientGone();
        }
    }
}
