package dev.sluice.limits;

import dev.sluice.config.ConfigException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One limit on one dimension. For a {@linkplain Dimension.Kind#RATE rate} the amount is per
 * minute, {@code burst} is the bucket's capacity (how much may go at once after a quiet spell) and
 * {@code window} the provider's short window over which the minute is enforced; for a gauge it is
 * the maximum in flight; for a daily cap the amount per calendar day.
 *
 * @param dimension what is limited
 * @param amount per minute, in flight, or per day, by the dimension's kind; positive
 * @param burst the bucket capacity of a rate; empty for the level's default (see
 *     {@link #capacityAt(ScopeLevel)})
 * @param window the short window of a rate; empty for the level's default (see
 *     {@link #windowAt(ScopeLevel)})
 */
public record Limit(Dimension dimension, long amount, OptionalLong burst, Optional<ShortWindow> window) {

    public Limit {
        Objects.requireNonNull(dimension, "dimension");
        Objects.requireNonNull(burst, "burst");
        Objects.requireNonNull(window, "window");
        ConfigException.require(amount > 0, dimension.limiterName(), "> 0", amount);
        if (burst.isPresent()) {
            ConfigException.require(dimension.kind() == Dimension.Kind.RATE,
                    dimension.limiterName() + ".burst", "no burst: only rates have one", burst.getAsLong());
            ConfigException.require(burst.getAsLong() > 0, dimension.limiterName() + ".burst", "> 0", burst.getAsLong());
        }
        if (window.isPresent()) {
            ConfigException.require(dimension.kind() == Dimension.Kind.RATE,
                    dimension.limiterName() + ".window", "no window: only rates have one", window.get().length());
        }
    }

    /** A limit with the level's default burst and window. */
    public Limit(Dimension dimension, long amount, OptionalLong burst) {
        this(dimension, amount, burst, Optional.empty());
    }

    public static Limit of(Dimension dimension, long amount) {
        return new Limit(dimension, amount, OptionalLong.empty());
    }

    public static Limit of(Dimension dimension, long amount, long burst) {
        return new Limit(dimension, amount, OptionalLong.of(burst));
    }

    /** A rate enforced over {@code window}: the bucket holds the window's allowance. */
    public static Limit windowed(Dimension dimension, long amount, ShortWindow window) {
        return new Limit(dimension, amount, OptionalLong.empty(), Optional.of(window));
    }

    /** This limit with {@code newWindow} as its short window. */
    public Limit withWindow(ShortWindow newWindow) {
        return new Limit(dimension, amount, burst, Optional.of(newWindow));
    }

    /**
     * The short window that shapes this rate at {@code level}: the configured one; else, for
     * requests, input tokens and total tokens where the provider enforces the limit (a deployment or
     * a shared provider scope) without a configured burst,
     * {@link ShortWindow#DEFAULT}, because the provider enforces its minute over a short window
     * and a minute's worth at once would pass Sluice and be refused upstream; else none (a tenant
     * or key may spend its minute at once).
     *
     * <p>Output tokens get no window by default: their reservation is held for the whole call,
     * so a bucket one second deep would let only one long stream run at a time, while the provider
     * counts output as it is generated, spread over the call. Total tokens do: the providers that
     * set a total limit (OpenAI, Azure) charge the prompt and {@code max_tokens} on arrival, as
     * Sluice reserves them there, and a minute's worth at once was refused by their short windows
     * (the weighted-tenants sweep: a 52.6% median provider 429 rate). Write a {@code window} for
     * output where the provider charges it on arrival over a short window.
     */
    public Optional<ShortWindow> windowAt(ScopeLevel level) {
        if (dimension.kind() != Dimension.Kind.RATE) {
            return Optional.empty();
        }
        if (window.isPresent()) {
            return window;
        }
        // Output alone keeps its minute: it is counted as it is generated, and a bucket a second
        // deep would hold a long stream's whole reservation until it ends. Total tokens are counted
        // on arrival (prompt and max_tokens, by OpenAI and Azure, which set such a limit) and
        // providers enforce them over short windows like requests and input.
        boolean windowedByDefault = dimension == Dimension.REQUESTS || dimension == Dimension.INPUT_TOKENS
                || dimension == Dimension.TOTAL_TOKENS;
        return level.enforcedByProvider() && burst.isEmpty() && windowedByDefault
                ? Optional.of(ShortWindow.DEFAULT) : Optional.empty();
    }

    /**
     * The most this limit lets through at once at the given level: the burst for a rate if one is
     * configured, else its window's allowance ({@link #windowAt}), else one minute's worth; the
     * amount for gauges and daily caps.
     */
    public long capacityAt(ScopeLevel level) {
        if (burst.isPresent()) {
            return burst.getAsLong();
        }
        Optional<ShortWindow> w = windowAt(level);
        return w.isPresent() ? w.get().allowance(amount) : amount;
    }

    /**
     * The largest single request this limit can ever take at {@code level}. Where a short window
     * shapes a rate, a request larger than the window's allowance waits for a full bucket (an empty
     * window) and leaves debt, so only one larger than the whole minute never fits; elsewhere it
     * is the capacity.
     */
    public long ceilingAt(ScopeLevel level) {
        long capacity = capacityAt(level);
        return windowAt(level).isPresent() ? Math.max(amount, capacity) : capacity;
    }

    /** Refill per nanosecond for a rate; zero for gauges and daily caps. */
    public double refillPerNano() {
        return dimension.kind() == Dimension.Kind.RATE ? amount / 60e9 : 0.0;
    }
}
