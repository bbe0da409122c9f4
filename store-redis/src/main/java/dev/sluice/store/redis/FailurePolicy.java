package dev.sluice.store.redis;

import java.util.Locale;
import java.util.Optional;

/** What a deployment's admissions do while the shared store cannot answer. */
public enum FailurePolicy {
    /** Refuse: {@link StoreUnavailableException}, which the gateway answers with 503. */
    FAIL_CLOSED,
    /** Admit from a local bucket holding 1/N of each limit, N the number of live replicas. */
    FAIL_OPEN_LOCAL;

    /** {@code fail_closed} or {@code fail_open_local}, as written in configuration. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<FailurePolicy> byWireName(String name) {
        for (FailurePolicy p : values()) {
            if (p.wireName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
