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
import dev.sluice.runtime.request.RequestNeeds;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.estimate.PromptShape;
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
    private RequestPlan requestPlan;

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
                request.req.getHeader(Deadlines.SDK_TIMEOUT_HEADER), core.config().classes());
        switch (d) {
            case Deadlines.Invalid bad -> request.fail(400, bad.code(), bad.message(), Optional.of(bad.header()));
            case Deadlines.Valid ok -> {
                trafficClass = ok.trafficClass();
                long deadline = ok.deadlineNanosFrom(core.clock.nanos());
                RequestBody.quote(request, json, profile, trafficClass, e -> {
                    try {
                        onEstimate(e, deadline);
                    } catch (RuntimeException failure) {
                        request.internalError(failure);
                    }
                });
            }
        }
    }

    private void onEstimate(TokenEstimate quoted, long deadlineNanos) {
        estimate = quoted;
        DeploymentConfig first = core.config().deployments().get(profile.deployment());
        if (!planFor(first)) {
            return;
        }
        KeyConfig key = request.key;
        requestPlan = new RequestPlan(request.traceId, request.route.operation().eventName(),
                new Caller(key.org(), key.tenant(), key.team(), key.id()), profile, trafficClass, deadlineNanos,
                estimate, plan.streaming(), needs());
        request.lifecycle.planned(requestPlan);
        request.lifecycle.admit(this::onAdmission);
    }

    /**
     * What the request needs of a model, for the fallback policy: read only for a profile with
     * several deployments, so that the others pay nothing for it.
     */
    private RequestNeeds needs() {
        if (!profile.hasFallbacks()) {
            return RequestNeeds.text(estimate.promptTokens(), 0);
        }
        PromptShape shape = PromptShapes.of(request.route.operation(), json);
        boolean tools = !shape.toolDefinitionsJson().isEmpty();
        return new RequestNeeds(estimate.promptTokens(), shape.maxOutputTokens().orElse(0), tools,
                tools && json.path("parallel_tool_calls").asBoolean(false), jsonSchema(json),
                shape.imageCountLow() + shape.imageCountHigh() > 0);
    }

    /** Whether the body asks for output that follows a JSON schema, in any family's words. */
    static boolean jsonSchema(ObjectNode json) {
        return "json_schema".equals(json.path("response_format").path("type").asText())
                || "json_schema".equals(json.path("text").path("format").path("type").asText())
                || json.path("generationConfig").has("responseSchema")
                || json.path("generationConfig").has("responseJsonSchema");
    }

    /** Builds the wire plan for {@code d}; false (and the client answered) when the request cannot go there. */
    private boolean planFor(DeploymentConfig d) {
        Optional<Runnable> refusal = tryPlanFor(d);
        refusal.ifPresent(Runnable::run);
        return refusal.isEmpty();
    }

    /**
     * Builds the wire plan for {@code d}; when the request cannot go there (a route or feature that
     * provider's format cannot carry), the 400 that says why, not yet sent.
     */
    private Optional<Runnable> tryPlanFor(DeploymentConfig d) {
        if (d == plannedFor) {
            return Optional.empty();
        }
        try {
            ProfileConfig there = profile.on(d.id());
            plan = UpstreamPlan.of(request.route.operation(), json, raw, there, d, request.req.query());
            plannedFor = d;
            if (there != profile) {
                dev.sluice.gateway.http.HeaderNames.model(request.resp.headers(), there);
            }
            return Optional.empty();
        } catch (UpstreamPlan.Unsupported e) {
            return Optional.of(() -> request.fail(400, "unsupported_route", e.getMessage(), Optional.of("model")));
        } catch (TranslationException e) {
            return Optional.of(() -> request.fail(400, "invalid_request", e.getMessage(), Optional.ofNullable(e.param())));
        }
    }

    private void onAdmission(Admission a) {
        try {
            admission(a);
        } catch (RuntimeException e) {
            request.internalError(e);
        }
    }

    private void admission(Admission a) {
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
        Optional<Runnable> cannotGo = tryPlanFor(attempt.deployment());
        if (cannotGo.isPresent()) {
            // The routing policy chose a deployment this request cannot be put in the format of, although the
            // fallback policy allowed it: nothing was sent, the reservation is given back whole, and another
            // allowed deployment is tried before the client gets the 400.
            if (request.lifecycle.unsendable(attempt)) {
                request.state = ClientRequest.State.ADMITTING;
                request.lifecycle.admit(this::onAdmission);
            } else {
                cannotGo.get().run();
            }
            return;
        }
        if (profile.hasFallbacks()) {
            request.resp.headers().set(dev.sluice.gateway.http.HeaderNames.DEPLOYMENT, attempt.deployment().id());
            request.lifecycle.fallbackReason().ifPresent(
                    why -> request.resp.headers().set(dev.sluice.gateway.http.HeaderNames.FALLBACK, why));
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
        if (attempt.number() == 1) {
            shadow(attempt.deployment());
        }
    }

    /** A sampled copy for the profile's rollout target in its shadow phase, when it has one and the target has room. */
    private void shadow(DeploymentConfig ranOn) {
        core.runtime.shadow(requestPlan, ranOn.id()).ifPresent(copy -> {
            UpstreamPlan there;
            try {
                there = UpstreamPlan.of(request.route.operation(), json, raw, profile.on(copy.target().id()),
                        copy.target(), request.req.query());
            } catch (UpstreamPlan.Unsupported | TranslationException e) {
                copy.end(dev.sluice.runtime.event.AttemptResult.NEVER_SENT);
                return;
            }
            ShadowCall.send(request, core, there, copy);
        });
    }

    void rejectLocally(Rejection r, DeploymentConfig d) {
        KeyConfig key = request.key;
        dropDeploymentHeaders();
        request.reject(new RejectionView(r.decision(), r.code(), r.message(), r.limiterName(), r.scopeName(),
                d.kind().wireName(), profile.id(), profile.on(d.id()).model(), r.retryAfterMillis(), r.retryable(),
                key.tenant(), key.id(), trafficClass.wireName(), estimate.inputTokens(), estimate.outputTokens(),
                request.traceId, Optional.of(r.explanation()), request.lifecycle.mode(),
                request.lifecycle.fallbackAllowed(), request.lifecycle.fallbackForbiddenBy()));
    }

    /**
     * The lifecycle moves the request to another deployment after its attempt failed there
     * ({@code AfterAttempt.Reroute}): nothing was written to the client, so it is admitted again.
     */
    void reroute() {
        call = null;
        dropDeploymentHeaders();
        request.state = ClientRequest.State.ADMITTING;
        request.lifecycle.admit(this::onAdmission);
    }

    /** Headers naming an attempt that did not answer. */
    private void dropDeploymentHeaders() {
        request.resp.headers().remove(dev.sluice.gateway.http.HeaderNames.DEPLOYMENT);
        request.resp.headers().remove(dev.sluice.gateway.http.HeaderNames.FALLBACK);
    }

    void clientGone() {
        if (call != null) {
            call.clientGone();
        }
    }
}
