package dev.sluice.limits;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One limit on one dimension. For a {@linkplain Dimension.Kind#RATE rate} the amount is per
 * minute and {@code burst} is the bucket's capacity (how much may go at once after a quiet
 * spell); for a gauge it is the maximum in flight; for a daily cap the amount per calendar day.
 *
 * @param dimension what is limited
 * @param amount per minute, in flight, or per day, by the dimension's kind; positive
 * @param burst the bucket capacity of a rate; empty for the level's default (see
 *     {@link #capacityAt(ScopeLevel)})
 */
public record Limit(Dimension dimension, long amount, OptionalLong burst) {

    /**
     * Providers enforce per-minute request limits over shorter windows: OpenAI quantises 60,000 RPM
     * to 1,000 a second, Azure checks RPM over 1- or 10-second windows, Anthropic refills a token
     * bucket continuously (60 RPM may act as one a second). One second's worth is the burst that
     * fits all of them, so by default a provider deployment lets at most that many requests go at
     * once; more would pass our bucket and be refused upstream.
     */
    public static final Duration DEPLOYMENT_REQUEST_BURST = Duration.ofSeconds(1);

    public Limit {
        Objects.requireNonNull(dimension, "dimension");
        Objects.requireNonNull(burst, "burst");
        ConfigException.require(amount > 0, dimension.limiterName(), "> 0", amount);
        if (burst.isPresent()) {
            ConfigException.require(dimension.kind() == Dimension.Kind.RATE,
                    dimension.limiterName() + ".burst", "no burst: only rates have one", burst.getAsLong());
            ConfigException.require(burst.getAsLong() > 0, dimension.limiterName() + ".burst", "> 0", burst.getAsLong());
        }
    }

    public static Limit of(Dimension dimension, long amount) {
        return new Limit(dimension, amount, OptionalLong.empty());
    }

    public static Limit of(Dimension dimension, long amount, long burst) {
        return new Limit(dimension, amount, OptionalLong.of(burst));
    }

    /**
     * The most this limit lets through at once at the given level: the burst for a rate (default:
     * one minute's worth, or {@link #DEPLOYMENT_REQUEST_BURST} of requests at a provider
     * deployment), the amount for gauges and daily caps. A request needing more can never fit.
     */
    public long capacityAt(ScopeLevel level) {
        if (burst.isPresent()) {
            return burst.getAsLong();
        }
        if (dimension == Dimension.REQUESTS && level == ScopeLevel.PROVIDER_DEPLOYMENT) {
            long perWindow = amount * DEPLOYMENT_REQUEST_BURST.toMillis() / 60_000;
            return Math.max(1, perWindow);
        }
        return amount;
    }

    /** Refill per nanosecond for a rate; zero for gauges and daily caps. */
    public double refillPerNano() {
        return dimension.kind() == Dimension.Kind.RATE ? amount / 60e9 : 0.0;
    }
}
