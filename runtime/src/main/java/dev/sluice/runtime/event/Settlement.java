package dev.sluice.runtime.event;

import java.util.Locale;

/** How an attempt's reservation ended: every admitted attempt ends in exactly one of these. */
public enum Settlement {
    /** Replaced by the usage the provider reported or Sluice counted. */
    SETTLED,
    /** Given back whole: nothing reached the provider. */
    RELEASED,
    /** Kept for the next attempt on the same deployment (a gateway retry after a provider 429). */
    HELD;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The name in events, rows and metrics: lower case. */
    public String wireName() {
        return wireName;
    }
}
