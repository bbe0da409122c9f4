package dev.sluice.runtime.request;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.event.Caller;
import java.util.Objects;

/**
 * What a request asks of the governor, fixed once it is identified and quoted: who, which
 * profile, which class, by when, and how much. The deployment is not in it: the routing policy
 * chooses one per attempt.
 *
 * @param traceId the request's trace id
 * @param operation what was asked, such as {@code openai.chat}
 * @param caller who asked
 * @param profile the model profile named
 * @param trafficClass the class it is served as
 * @param deadlineNanos the caller's deadline on the runtime's clock; {@link AdmissionRequest#NO_DEADLINE} for none
 * @param estimate the preflight quote
 * @param streaming whether the client asked for a stream
 * @param needs what it needs of a model, for the fallback policy
 */
public record RequestPlan(String traceId, String operation, Caller caller, ProfileConfig profile,
        TrafficClass trafficClass, long deadlineNanos, TokenEstimate estimate, boolean streaming, RequestNeeds needs) {

    /** A text-only plan: its needs are its estimate's prompt and output. */
    public RequestPlan(String traceId, String operation, Caller caller, ProfileConfig profile,
            TrafficClass trafficClass, long deadlineNanos, TokenEstimate estimate, boolean streaming) {
        this(traceId, operation, caller, profile, trafficClass, deadlineNanos, estimate, streaming,
                RequestNeeds.text(estimate.promptTokens(), 0));
    }

    public RequestPlan {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(estimate, "estimate");
        Objects.requireNonNull(needs, "needs");
    }

    /**
     * The token estimator's key for a profile and class: output reservations are learned per
     * profile and class, because a batch job's answers are not an interactive chat's.
     */
    public static String estimateKey(ProfileConfig profile, TrafficClass trafficClass) {
        return profile.id() + "/" + trafficClass.wireName();
    }

    /** This plan's {@link #estimateKey(ProfileConfig, TrafficClass)}. */
    public String estimateKey() {
        return estimateKey(profile, trafficClass);
    }

    public boolean hasDeadline() {
        return deadlineNanos != AdmissionRequest.NO_DEADLINE;
    }
}
