package dev.sluice.limits;

import dev.sluice.config.ConfigException;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/** An immutable set of limits, at most one per dimension. Any subset may be present. */
public final class Limits {

    private static final Limits NONE = new Limits(new EnumMap<>(Dimension.class));

    private final Map<Dimension, Limit> byDimension;

    private Limits(EnumMap<Dimension, Limit> byDimension) {
        this.byDimension = Collections.unmodifiableMap(byDimension);
    }

    public static Limits none() {
        return NONE;
    }

    public static Limits of(Limit... limits) {
        Builder b = builder();
        for (Limit l : limits) {
            b.add(l);
        }
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Optional<Limit> get(Dimension d) {
        return Optional.ofNullable(byDimension.get(d));
    }

    public boolean has(Dimension d) {
        return byDimension.containsKey(d);
    }

    public boolean isEmpty() {
        return byDimension.isEmpty();
    }

    public Collection<Limit> all() {
        return byDimension.values();
    }

    /** A copy with {@code limit} replacing any limit on its dimension. */
    public Limits with(Limit limit) {
        EnumMap<Dimension, Limit> copy = new EnumMap<>(Dimension.class);
        copy.putAll(byDimension);
        copy.put(limit.dimension(), limit);
        return new Limits(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Limits other && byDimension.equals(other.byDimension);
    }

    @Override
    public int hashCode() {
        return byDimension.hashCode();
    }

    @Override
    public String toString() {
        return byDimension.values().toString();
    }

    /** Builds {@link Limits}; a second limit on the same dimension is an error. */
    public static final class Builder {
        private final EnumMap<Dimension, Limit> byDimension = new EnumMap<>(Dimension.class);

        public Builder add(Limit limit) {
            ConfigException.require(!byDimension.containsKey(limit.dimension()),
                    limit.dimension().limiterName(), "at most one limit per dimension", "a second one");
            byDimension.put(limit.dimension(), limit);
            return this;
        }

        public Builder add(Dimension d, long amount) {
            return add(Limit.of(d, amount));
        }

        public Builder add(Dimension d, long amount, long burst) {
            return add(Limit.of(d, amount, burst));
        }

        public Limits build() {
            return byDimension.isEmpty() ? NONE : new Limits(new EnumMap<>(byDimension));
        }
    }
}
