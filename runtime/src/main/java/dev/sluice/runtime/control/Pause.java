package dev.sluice.runtime.control;

import dev.sluice.limits.Scope;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * An operator's pause of one scope: every request whose path crosses it is refused at once.
 *
 * @param scope the paused scope: an organisation, tenant, team, key, model profile or deployment
 * @param reason why, in the operator's words; shown to the refused caller
 * @param until when it lifts by itself; empty until someone resumes it
 * @param by the admin token id that paused it ({@code config} for a key paused in the file)
 * @param at when it was paused
 */
public record Pause(Scope scope, String reason, Optional<Instant> until, String by, Instant at) {

    public Pause {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(until, "until");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(at, "at");
    }

    /** Whether it still holds at {@code nowMillis}. */
    public boolean holdsAt(long nowMillis) {
        return until.map(u -> nowMillis < u.toEpochMilli()).orElse(true);
    }
}
