package dev.sluice.estimate;

import java.util.List;
import java.util.Locale;

/**
 * Suggests a {@link Tokenizer} for a provider model name. For configuration loading and tooling
 * only: deployments often carry arbitrary names (Azure), so the estimator itself never infers a
 * tokenizer from a name and uses the one the profile states.
 */
public final class TokenizerChoice {

    private static final List<String> O200K_PREFIXES = List.of("gpt-4o", "gpt-4.1", "o1", "o3", "o4", "gpt-5");
    private static final List<String> CL100K_PREFIXES = List.of("gpt-4", "gpt-3.5");

    private TokenizerChoice() {
    }

    /**
     * The suggested tokenizer for {@code providerModel}: o200k_base for gpt-4o*, gpt-4.1*, o1*, o3*,
     * o4* and gpt-5*; cl100k_base for the remaining gpt-4* and gpt-3.5*; calibrated for anything
     * else. Case-insensitive; an {@code openai/} namespace and an {@code ft:} fine-tune prefix are
     * ignored.
     */
    public static Tokenizer defaultFor(String providerModel) {
        String model = providerModel.strip().toLowerCase(Locale.ROOT);
        if (model.startsWith("openai/")) {
            model = model.substring("openai/".length());
        }
        if (model.startsWith("ft:")) {
            model = model.substring("ft:".length());
        }
        // o200k first: "gpt-4o" and "gpt-4.1" also start with the cl100k prefix "gpt-4".
        if (startsWithAny(model, O200K_PREFIXES)) {
            return Tokenizer.O200K_BASE;
        }
        if (startsWithAny(model, CL100K_PREFIXES)) {
            return Tokenizer.CL100K_BASE;
        }
        return Tokenizer.CALIBRATED;
    }

    private static boolean startsWithAny(String model, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (model.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
