package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;

/**
 * How a simulated client retries a retryable failure (a 429, local or from the provider; a 5xx,
 * 529 or broken connection), as the official SDKs do: at most {@code maxRetries} more attempts,
 * waiting the server's hint when it gives one of at most {@code maxHonouredHint}, else
 * {@code min(baseDelay x 2^n, maxDelay)} less up to 25% jitter; never past the request's deadline.
 */
public record RetryPolicy(int maxRetries, Duration baseDelay, Duration maxDelay, Duration maxHonouredHint) {

    /** The SDKs' defaults: 2 retries, 0.5 s doubling up to 8 s, hints honoured up to 60 s. */
    public static final RetryPolicy SDK_DEFAULT =
            new RetryPolicy(2, Duration.ofMillis(500), Duration.ofSeconds(8), Duration.ofSeconds(60));

    public RetryPolicy {
        ConfigException.require(maxRetries >= 0, "max_retries", ">= 0", maxRetries);
        ConfigException.require(baseDelay.isPositive(), "base_delay", "> 0", baseDelay);
        ConfigException.require(maxDelay.compareTo(baseDelay) >= 0, "max_delay", ">= base_delay", maxDelay);
        ConfigException.require(!maxHonouredHint.isNegative(), "max_honoured_hint", ">= 0", maxHonouredHint);
    }

    /** The wait before retry number {@code n} (0 for the first), given the server's hint if any. */
    public long delayNanos(int n, long hintMillis, double random01) {
        if (hintMillis > 0 && hintMillis <= maxHonouredHint.toMillis()) {
            return hintMillis * 1_000_000L;
        }
        double backoff = Math.min(baseDelay.toNanos() * Math.pow(2, n), maxDelay.toNanos());
        return (long) (backoff * (1 - 0.25 * random01));
    }

    static RetryPolicy parse(YamlNode n) {
        if (!n.present()) {
            return SDK_DEFAULT;
        }
        n.allowOnly(java.util.Set.of("max_retries", "base_delay", "max_delay", "max_honoured_hint"));
        return new RetryPolicy((int) n.get("max_retries").longValue(SDK_DEFAULT.maxRetries),
                n.get("base_delay").duration(SDK_DEFAULT.baseDelay), n.get("max_delay").duration(SDK_DEFAULT.maxDelay),
                n.get("max_honoured_hint").duration(SDK_DEFAULT.maxHonouredHint));
    }
}
