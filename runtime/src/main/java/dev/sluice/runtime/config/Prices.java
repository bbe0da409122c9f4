package dev.sluice.runtime.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The price table ({@code prices:} in the file): by deployment id or by the provider's model name.
 * An attempt is priced by its deployment's entry when there is one, else by the model it sends;
 * a model in neither is free (it is never refused by a money cap, and shows a cost of 0).
 *
 * @param byName prices keyed by a deployment id or a provider model name
 */
public record Prices(Map<String, Price> byName) {

    /** No prices at all. */
    public static final Prices NONE = new Prices(Map.of());

    public Prices {
        byName = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(byName, "byName")));
    }

    /** The price of {@code model} sent to {@code deployment}. */
    public Price of(String deployment, String model) {
        Price p = byName.get(deployment);
        if (p != null) {
            return p;
        }
        return byName.getOrDefault(model, Price.FREE);
    }

    /** A copy with {@code name} priced at {@code price}. */
    public Prices with(String name, Price price) {
        Map<String, Price> next = new LinkedHashMap<>(byName);
        next.put(name, price);
        return new Prices(next);
    }
}
