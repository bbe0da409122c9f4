package dev.sluice.limits;

import java.util.Objects;

/**
 * One node of the hierarchy: a level and an id, written {@code level:id} ({@code tenant:acme}).
 * This is what a rejection names as the scope that bound it.
 */
public record Scope(ScopeLevel level, String id) {

    public Scope {
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("id: blank (expected: a non-empty scope id)");
        }
    }

    public static Scope of(ScopeLevel level, String id) {
        return new Scope(level, id);
    }

    /** The stable key of this scope's bucket, {@code tenant:acme}. */
    public String key() {
        return level.prefix() + ":" + id;
    }

    @Override
    public String toString() {
        return key();
    }
}
