package dev.sluice.runtime.config;

import java.util.Objects;

/** A credential read from the environment. Its {@link #toString()} never shows the value. */
public final class Secret {

    private final String value;

    public Secret(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /** The credential itself: only for the header that carries it upstream. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "***";
    }
}
