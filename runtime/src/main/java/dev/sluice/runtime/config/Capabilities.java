package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a deployment's model offers, as its configuration declares it: what the fallback policy
 * compares a request's needs and its first deployment with before letting it run elsewhere.
 * Undeclared limits are unknown (no request is judged too large for them); undeclared features
 * are offered, so that a configuration written before capabilities existed routes as it did.
 *
 * @param contextWindow the most tokens prompt and output may total, if declared
 * @param maxOutputTokens the most output tokens one answer may have, if declared
 * @param tools whether it calls tools
 * @param parallelTools whether it calls several tools in one turn
 * @param jsonSchema whether it follows a JSON schema ({@code response_format: json_schema})
 * @param vision whether it reads images
 * @param region where it runs (residency), if declared
 * @param retention how long the provider keeps what it is sent
 * @param relativeCost its price relative to the others (1 when not declared)
 */
public record Capabilities(OptionalLong contextWindow, OptionalLong maxOutputTokens, boolean tools,
        boolean parallelTools, boolean jsonSchema, boolean vision, Optional<String> region, Retention retention,
        double relativeCost) {

    /** What a deployment that declares nothing offers. */
    public static final Capabilities UNDECLARED = new Capabilities(OptionalLong.empty(), OptionalLong.empty(), true,
            true, true, true, Optional.empty(), Retention.STANDARD, 1.0);

    public Capabilities {
        Objects.requireNonNull(contextWindow, "contextWindow");
        Objects.requireNonNull(maxOutputTokens, "maxOutputTokens");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(retention, "retention");
        contextWindow.ifPresent(v -> ConfigException.require(v >= 1, "context_window", ">= 1", v));
        maxOutputTokens.ifPresent(v -> ConfigException.require(v >= 1, "max_output_tokens", ">= 1", v));
        ConfigException.require(relativeCost > 0 && Double.isFinite(relativeCost), "relative_cost", "> 0",
                relativeCost);
    }

    /**
     * How long a provider keeps prompts and answers, strictest first. A request may fall back to a
     * deployment that keeps them no longer than its first deployment does.
     */
    public enum Retention {
        /** Nothing kept (zero data retention). */
        ZERO,
        /** Kept briefly for abuse monitoring only. */
        LIMITED,
        /** The provider's standard terms. */
        STANDARD;

        /** The name in configuration files. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Whether it keeps data longer than {@code other}. */
        public boolean looserThan(Retention other) {
            return ordinal() > other.ordinal();
        }
    }
}
