package dev.sluice.limits;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * The short window over which a provider enforces a per-minute limit: a window of
 * {@code length} lets {@code amount x length / 60 s x burst} through, and the per-minute rate
 * refills it. Sluice holds a deployment's rate bucket to that allowance, so what it lets go at once
 * is what the provider's window takes, and a request larger than the allowance waits for a full
 * bucket (an empty window) instead of being refused: only one larger than the whole minute never
 * fits.
 *
 * @param length the window; 1 ms to 60 s
 * @param burst the multiple of the per-minute rate the window allows; 1 to 10
 */
public record ShortWindow(Duration length, double burst) {

    // Before DEFAULT, which the constructor checks against them.
    public static final Duration MIN_LENGTH = Duration.ofMillis(1);
    public static final Duration MAX_LENGTH = Duration.ofMinutes(1);

    /**
     * The window assumed for a provider deployment's requests, input and total tokens when none is
     * configured ({@link Limit#windowAt}): one second at
     * the per-minute rate. Every window a provider documents is at least that long (OpenAI
     * quantises per second, Azure checks 1- or 10-second windows, Anthropic refills a bucket
     * continuously), and one second's worth at once is what a per-second quantisation takes, so a
     * bucket of that size is refused by none of them for its burst.
     */
    public static final ShortWindow DEFAULT = new ShortWindow(Duration.ofSeconds(1), 1.0);

    public ShortWindow {
        Objects.requireNonNull(length, "length");
        ConfigException.require(length.compareTo(MIN_LENGTH) >= 0 && length.compareTo(MAX_LENGTH) <= 0,
                "length", "between 1ms and 60s", length);
        ConfigException.require(Double.isFinite(burst) && burst >= 1 && burst <= 10, "burst",
                "between 1 and 10", burst);
    }

    /** A window of {@code length} at the per-minute rate (burst 1). */
    public static ShortWindow of(Duration length) {
        return new ShortWindow(length, 1.0);
    }

    /**
     * What the window lets through of a per-minute {@code amount}: {@code amount x length / 60 s x
     * burst}, rounded down (never promise more than the provider's window), and at least 1, so one
     * unit always fits.
     */
    public long allowance(long amount) {
        double a = (double) amount * length.toNanos() / 60e9 * burst;
        return Math.max(1, (long) Math.floor(a + 1e-9));
    }

    /** The same burst over {@code newLength}. */
    public ShortWindow withLength(Duration newLength) {
        return new ShortWindow(newLength, burst);
    }
}
