package dev.sluice.estimate;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How a model profile's prompt is counted. Chosen explicitly in the profile's configuration, never
 * guessed from a model name while serving; {@link TokenizerChoice#defaultFor(String)} only
 * suggests a value when the configuration is written or loaded.
 */
public enum Tokenizer {
    /** The o200k_base byte-pair encoding (gpt-4o, gpt-4.1, o-series, gpt-5). */
    O200K_BASE("o200k_base"),
    /** The cl100k_base byte-pair encoding (gpt-4, gpt-3.5-turbo). */
    CL100K_BASE("cl100k_base"),
    /**
     * No local tokenizer: a character heuristic corrected by a ratio learned from the provider's
     * reported usage (Anthropic, Gemini, unknown providers).
     */
    CALIBRATED("calibrated");

    private final String configName;

    Tokenizer(String configName) {
        this.configName = configName;
    }

    /** The value used in configuration files and reports, e.g. {@code "o200k_base"}. */
    public String configName() {
        return configName;
    }

    /**
     * Parses a configuration value.
     *
     * @throws IllegalArgumentException naming the accepted values when {@code name} is unknown
     */
    public static Tokenizer fromConfigName(String name) {
        for (Tokenizer t : values()) {
            if (t.configName.equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("tokenizer: " + name + " (expected one of: "
                + Arrays.stream(values()).map(Tokenizer::configName).collect(Collectors.joining(", "))
                + ")");
    }
}
