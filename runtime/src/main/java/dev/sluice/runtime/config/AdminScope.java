package dev.sluice.runtime.config;

import java.util.Objects;
import java.util.Optional;

/**
 * What an admin token may do: {@code admin} everything; {@code read} everything but changes;
 * {@code partner:<org or tenant>} the subtree below that organisation or tenant, nothing above
 * or beside it.
 *
 * @param kind the scope's kind
 * @param subject for a partner, the organisation or tenant id it manages
 */
public record AdminScope(Kind kind, Optional<String> subject) {

    /** The kinds of admin scope. */
    public enum Kind { ADMIN, READ, PARTNER }

    public AdminScope {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        if ((kind == Kind.PARTNER) != subject.isPresent()) {
            throw new IllegalArgumentException("subject: " + subject + " (expected: present exactly for a partner)");
        }
    }

    public static final AdminScope ADMIN = new AdminScope(Kind.ADMIN, Optional.empty());
    public static final AdminScope READ = new AdminScope(Kind.READ, Optional.empty());

    public static AdminScope partner(String subject) {
        return new AdminScope(Kind.PARTNER, Optional.of(subject));
    }

    /** Parses {@code admin}, {@code read} or {@code partner:<id>}; empty for anything else. */
    public static Optional<AdminScope> parse(String s) {
        if ("admin".equals(s)) {
            return Optional.of(ADMIN);
        }
        if ("read".equals(s)) {
            return Optional.of(READ);
        }
        if (s.startsWith("partner:") && s.length() > "partner:".length()) {
            return Optional.of(partner(s.substring("partner:".length())));
        }
        return Optional.empty();
    }

    /** Whether it may change anything (within its subtree, for a partner). */
    public boolean mayChange() {
        return kind != Kind.READ;
    }

    /** The name in configuration and audit records: {@code partner:acme}. */
    public String wireName() {
        return switch (kind) {
            case ADMIN -> "admin";
            case READ -> "read";
            case PARTNER -> "partner:" + subject.orElseThrow();
        };
    }
}
