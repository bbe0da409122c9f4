package dev.sluice.runtime.request;

import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.Rejection;
import dev.sluice.limits.ScopeLevel;
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
 * </ul>
 * A timeout or a broken connection does not move: the provider may have done the work, and
 * running it again elsewhere would pay for it twice.
 */
final class FallbackTriggers {

    static final String LOCAL_WAIT = "local_wait";
    static final String PROVIDER_429 = "provider_429";
    static final String PROVIDER_5XX = "provider_5xx";
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
            default -> Optional.empty();
        };
    }
}
