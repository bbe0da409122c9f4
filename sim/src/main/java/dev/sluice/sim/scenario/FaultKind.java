package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.util.Locale;

/** A way a provider call fails other than a rate limit. */
public enum FaultKind {
    /** HTTP 500. */
    SERVER_ERROR,
    /** HTTP 529 (Anthropic) or 503: the provider as a whole is short of capacity. */
    OVERLOADED,
    /** The connection breaks after part of the answer was streamed. */
    RESET;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static FaultKind parse(YamlNode n) {
        String s = n.text();
        for (FaultKind k : values()) {
            if (k.wireName().equals(s)) {
                return k;
            }
        }
        throw new ConfigException(n.path(), "server_error, overloaded or reset", s);
    }
}
