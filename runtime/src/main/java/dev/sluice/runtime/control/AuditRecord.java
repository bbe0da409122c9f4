package dev.sluice.runtime.control;

import java.time.Instant;
import java.util.Objects;

/**
 * One change, as operators read it later: who, what, before and after, when. Before and after are
 * JSON texts ({@code null} when there was nothing); they never hold a secret or its hash.
 *
 * @param seq its place in the journal, increasing
 * @param at when it was made
 * @param tokenId the admin token that made it ({@code config} for a reload)
 * @param action what was done: {@code tenant.create}, {@code key.rotate}, {@code pause} ...
 * @param target the scope changed, {@code tenant:acme}
 * @param before the state before, as JSON
 * @param after the state after, as JSON
 */
public record AuditRecord(long seq, Instant at, String tokenId, String action, String target, String before,
        String after) {

    public AuditRecord {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
    }
}
