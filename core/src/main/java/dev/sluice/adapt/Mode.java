package dev.sluice.adapt;

import java.util.Locale;

/**
 * A deployment's operating mode, from calm to most defensive. Declaration order is severity.
 */
public enum Mode {
    /** Everything is admitted as configured. */
    NORMAL,
    /** Signs of pressure: nothing is refused, but the ramp and the learned ceiling stop growing. */
    CAUTION,
    /**
     * Critical, interactive, batch and eval continue with trimmed output (the gateway caps max
     * output tokens); background work is paused.
     */
    BROWNOUT,
    /** Everything but critical is refused at once with {@code shed_under_pressure} and a retry delay. */
    LOAD_SHEDDING;

    /** The name in events, metrics and configuration: {@code load_shedding}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether this mode is more defensive than {@code other}. */
    public boolean above(Mode other) {
        return ordinal() > other.ordinal();
    }
}
