package dev.sluice.runtime.request;

import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.Rejection;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.signal.SignalStatus;
import java.util.Optional;

/**
 * When a request's next attempt is asked for on another deployment. Pure. Whether one is
 * allowed, and which, is the routing policy's ({@code FallbackPolicy}); this says only what
 * makes the lifecycle ask.
 *
 * <ul>
 *   <li>{@value #LOCAL_WAIT}: the first choice refused it at once, by its own deployment bucket
 *       or lane (a shortfall beyond the class's wait budget, a full or busy queue, a paused or
 *       shedding deployment), or by a shared provider scope's bucket (then only a deployment
 *       outside that scope may take it). A refusal by a tenant, key, team, organisation or profile bucket
 *       does not move it: those buckets are on every deployment's path. A refusal after waiting
 *       does not either: its wait budget is spent.</li>
 *   <li>{@value #PROVIDER_429}: the provider answered 429.</li>
 *   <li>{@value #PROVIDER_5XX}: the provider answered 500, 502, 503, 504 or 529 before any of the
 *       answer reached the client and without producing anything.</li>
 *   <li>{@value #PROVIDER_TIMEOUT}: nothing came back within {@code upstream_timeout}, and
 *       {@value #CONNECTION_RESET}: the connection broke before any answer; in both, nothing of an
 *       answer reached the client. The provider read the prompt, so that attempt is charged its
 *       estimated input where it ran, and its reservation ends before the next is asked for.</li>
 *   <li>{@value #UNREACHABLE}: the connection could not be made; nothing was sent, so the attempt's
 *       reservation is released whole.</li>
 * </ul>
 * And {@value #DEPLOYMENT_REMOVED}: a change removed the deployment it waited for.
 * A stream that breaks after part of it was relayed does not move: the client has the part.
 * Every trigger moves only while the request's deadline has not passed.
 */
final class FallbackTriggers {

    static final String LOCAL_WAIT = "local_wait";
    static final String PROVIDER_429 = "provider_429";
    static final String PROVIDER_5XX = "provider_5xx";
    static final String PROVIDER_TIMEOUT = "provider_timeout";
    static final String CONNECTION_RESET = "connection_reset";
    static final String UNREACHABLE = "unreachable";
    /**
     * A configuration change removed the deployment the request waited for (or was admitted on and
     * not yet sent to): its profile's routing, as it is now, takes it elsewhere.
     */
    static final String DEPLOYMENT_REMOVED = "deployment_removed";
    /** The transport could not put the request in the chosen deployment's format: nothing was sent. */
    static final String UNTRANSLATABLE = "untranslatable";
    /** The rule a refusal names when the limit that refused it is on every deployment's path. */
    static final String SHARED_LIMIT = "shared_limit";

    private FallbackTriggers() {}

    /** The rule a move names when every other deployment is under the shared provider scope that refused it. */
    static final String SAME_PROVIDER_SCOPE = "same_provider_scope";

    /**
     * Whether a local refusal is the deployment's own or its provider scope's, so that another
     * deployment may have room.
     */
    static boolean movable(Rejection r) {
        if ("deadline_exceeded".equals(r.code()) || r.decision() == GatewayDecision.QUEUED_THEN_TIMED_OUT) {
            return false;
        }
        return r.scope().map(s -> s.level() == ScopeLevel.PROVIDER_DEPLOYMENT || s.level() == ScopeLevel.PROVIDER_SCOPE)
                .orElse(true);
    }

    /**
     * The reason to move after {@code outcome}, if it is one.
     *
     * @param answerStarted whether the client has already been sent part of the answer
     */
    static Optional<String> afterAttempt(AttemptOutcome outcome, boolean answerStarted) {
        return switch (outcome) {
            case AttemptOutcome.Throttled t -> Optional.of(PROVIDER_429);
            case AttemptOutcome.Failed f when !answerStarted && f.produced().isEmpty()
                    && RetryRule.serverFault(f.signal()) -> Optional.of(PROVIDER_5XX);
            case AttemptOutcome.Failed f when !answerStarted && f.produced().isEmpty()
                    && f.signal().status() == SignalStatus.TIMEOUT -> Optional.of(PROVIDER_TIMEOUT);
            case AttemptOutcome.Failed f when !answerStarted && f.produced().isEmpty()
                    && f.signal().status() == SignalStatus.CONNECTION_FAILED -> Optional.of(CONNECTION_RESET);
            case AttemptOutcome.NeverSent n when !answerStarted -> Optional.of(UNREACHABLE);
            default -> Optional.empty();
        };
    }
}
