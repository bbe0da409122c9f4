package dev.sluice.governor;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import java.util.Objects;

/**
 * What is configured for one scope of the hierarchy.
 *
 * @param limits the bucket's limits (its ceiling); empty for no bucket at this scope
 * @param weight share of contended capacity relative to siblings (tenants under contention are
 *     served in proportion to weight); positive
 * @param guaranteed minimum rates served before anyone borrows, per dimension (rates only)
 */
public record ScopeSettings(Limits limits, double weight, Limits guaranteed) {

    public static final double DEFAULT_WEIGHT = 1.0;

    public ScopeSettings {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(guaranteed, "guaranteed");
        ConfigException.require(weight > 0 && Double.isFinite(weight), "weight", "> 0", weight);
        for (var g : guaranteed.all()) {
            ConfigException.require(g.dimension().kind() == Dimension.Kind.RATE,
                    "guaranteed." + g.dimension().limiterName(), "a rate (rpm, input_tpm, output_tpm, tpm)", "a "
                            + g.dimension().kind().name().toLowerCase(java.util.Locale.ROOT));
            limits.get(g.dimension()).ifPresent(ceiling -> ConfigException.require(g.amount() <= ceiling.amount(),
                    "guaranteed." + g.dimension().limiterName(), "<= the limit " + ceiling.amount(), g.amount()));
        }
    }

    public static ScopeSettings of(Limits limits) {
        return new ScopeSettings(limits, DEFAULT_WEIGHT, Limits.none());
    }

    public static ScopeSettings weighted(Limits limits, double weight) {
        return new ScopeSettings(limits, weight, Limits.none());
    }
}
