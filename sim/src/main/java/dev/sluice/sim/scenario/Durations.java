package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import java.time.Duration;

/** Parses durations written as in scenario files ({@code 300ms}, {@code 2s}, {@code 1m30s}). */
public final class Durations {

    private Durations() {}

    /** @param what names the value in the error message */
    public static Duration parse(String what, String text) {
        return YamlNode.parseDuration(what, text);
    }
}
