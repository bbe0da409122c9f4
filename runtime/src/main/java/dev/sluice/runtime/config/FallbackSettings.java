package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A profile's fallback policy: which classes may run on a deployment other than their first
 * choice, and within which bounds. The request's own needs are checked against the target's
 * {@link Capabilities} as well ({@code runtime.routing.FallbackPolicy}).
 *
 * @param classes the classes that may fall back; by default all but batch, which is judged on
 *     completion, not latency, and so waits for its own deployment rather than change semantics
 * @param maxCostRatio the most a fallback may cost relative to the first choice
 *     ({@link Capabilities#relativeCost}); unbounded by default
 * @param sameRegion whether a fallback must run in the first choice's region
 */
public record FallbackSettings(Set<TrafficClass> classes, double maxCostRatio, boolean sameRegion) {

    /** By default batch never falls back; no cost bound; any region the tenant allows. */
    public static final FallbackSettings DEFAULTS = new FallbackSettings(
            EnumSet.complementOf(EnumSet.of(TrafficClass.BATCH)), Double.POSITIVE_INFINITY, false);

    public FallbackSettings {
        Objects.requireNonNull(classes, "classes");
        classes = Set.copyOf(classes);
        ConfigException.require(maxCostRatio > 0, "max_cost_ratio", "> 0", maxCostRatio);
    }
}
