package dev.sluice.runtime.explain;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Request events for the explanation's tests: acme/x's key k, interactive, profile chat on east. */
final class Requests {

    static final Caller ACME = new Caller("o", "acme", "acme/x", "k");

    private Requests() {}

    static String trace(int n) {
        return String.format("%032x", n);
    }

    /** Answered 200 at once, estimate 100/50, provider reported 90/60. */
    static RequestEvent answered(int n) {
        return event(n, "admitted", Optional.empty(), Optional.empty(), Optional.empty(), 0, 200, Optional.empty(),
                List.of(attempt(n, 1, AttemptResult.ANSWERED, 200, "ok", OptionalLong.empty())));
    }

    /** Refused at once by the tenant's rpm: 1200 ms of wait predicted, 300 ms allowed by the class. */
    static RequestEvent refusedByTenantRpm(int n) {
        Decider d = new Decider("rpm", "tenant:acme", Optional.empty(), false, false, OptionalLong.of(1_200_000_000L),
                OptionalLong.empty(), OptionalLong.of(300_000_000L), false);
        return event(n, "rejected", Optional.of("rejected_locally"), Optional.of(d), Optional.of("tenant_rpm_exhausted"),
                0, 429, Optional.empty(), List.of());
    }

    /** Waited 850 ms on the deployment's 1 s input window behind the interactive reserve, then a 429 retried. */
    static RequestEvent waitedThenRetried(int n) {
        Decider d = new Decider("input_tpm", "deployment:east", Optional.of("1s"), false, true,
                OptionalLong.of(800_000_000L), OptionalLong.of(2_000_000_000L), OptionalLong.of(4_000_000_000L), true);
        return event(n, "queued", Optional.empty(), Optional.of(d), Optional.empty(), 850_000_000L, 200,
                Optional.empty(), List.of(attempt(n, 1, AttemptResult.THROTTLED, 429, "rate_limited", OptionalLong.of(250)),
                        attempt(n, 2, AttemptResult.ANSWERED, 200, "ok", OptionalLong.empty())));
    }

    static RequestEvent event(int n, String decision, Optional<String> gatewayDecision, Optional<Decider> decider,
            Optional<String> code, long queueWaitNanos, int status, Optional<String> fallback, List<AttemptEvent> attempts) {
        return new RequestEvent(trace(n), String.format("%016x", n), 1_764_640_800_000L + n, "openai.chat",
                Optional.of(ACME), Optional.of("chat"), Optional.of("interactive"), Optional.of("east"),
                Optional.of("openai"), Optional.of("gpt-4o-mini"), Map.of(), false, new TokenCounts(100, 50, 0),
                attempts.isEmpty() ? TokenCounts.NONE : new TokenCounts(90, 60, 0), !attempts.isEmpty(), decision,
                gatewayDecision, decider, code, queueWaitNanos, Optional.of("normal"), false, false, attempts.size(),
                fallback, status, OptionalLong.empty(), 1_000_000_000L, OptionalLong.empty(), attempts);
    }

    static AttemptEvent attempt(int n, int number, AttemptResult result, int status, String reason,
            OptionalLong retryDelay) {
        return new AttemptEvent(trace(n), number, "east", "openai", "gpt-4o-mini", Map.of(), 1_764_640_800_000L, result,
                status, reason, Optional.empty(), OptionalLong.empty(), new TokenCounts(100, 50, 0),
                result == AttemptResult.ANSWERED ? new TokenCounts(90, 60, 0) : TokenCounts.NONE, true, true,
                retryDelay.isPresent() ? Settlement.HELD : Settlement.SETTLED, 500_000_000L, OptionalLong.empty(),
                retryDelay);
    }
}
