package dev.sluice.mock.http;

import dev.sluice.mock.limits.HeaderReport;
import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.RetryAfterMeaning;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a {@link MockProviderServer} is started with. Limits and faults can change at run time
 * ({@code POST /_mock/limits}, {@code POST /_mock/faults}); the rest is fixed for the server's life.
 *
 * @param flavour the provider it imitates
 * @param host the address to bind; loopback by default
 * @param port the port to bind; 0 for any free port
 * @param limits the provider limits enforced
 * @param behaviour how they are enforced and reported ({@link ProviderBehaviour#REFERENCE} by default)
 * @param faults the faults injected
 * @param latency how long answers take
 * @param retryAfter the wait hints on 429s and overloads
 * @param headerMode which rate-limit headers are sent (ignored by Gemini, which sends none)
 * @param ietfHeaders whether {@code RateLimit-Policy} and {@code RateLimit} are sent too
 * @param ietfSplitLines whether each IETF policy goes on its own header line
 * @param rateLimitBody which 429 body is sent
 * @param requiredKeys API keys accepted; empty to accept any (keys are never logged)
 * @param seed seeds output lengths and fault draws
 * @param meanOutputTokens the mean output length when the request does not force one
 * @param outputSpread output lengths are uniform in mean +/- spread, capped at {@code max_tokens}
 * @param defaultMaxTokens the output cap when a request gives none (Azure reserves it)
 * @param dailyResetZone the zone whose midnight resets the daily limit (Pacific for Gemini)
 */
public record MockConfig(
        Flavour flavour,
        String host,
        int port,
        ProviderLimits limits,
        ProviderBehaviour behaviour,
        FaultConfig faults,
        LatencyConfig latency,
        RetryAfterConfig retryAfter,
        HeaderMode headerMode,
        boolean ietfHeaders,
        boolean ietfSplitLines,
        RateLimitBody rateLimitBody,
        Set<String> requiredKeys,
        long seed,
        long meanOutputTokens,
        long outputSpread,
        long defaultMaxTokens,
        ZoneId dailyResetZone) {

    /** Loopback: the mock is for tests and demos on one machine. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    /** Pacific time, where Gemini's daily quotas reset. */
    public static final ZoneId PACIFIC = ZoneId.of("America/Los_Angeles");

    public MockConfig {
        Objects.requireNonNull(flavour, "flavour");
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0 to 65535)");
        }
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(behaviour, "behaviour");
        Objects.requireNonNull(faults, "faults");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(headerMode, "headerMode");
        Objects.requireNonNull(rateLimitBody, "rateLimitBody");
        requiredKeys = Set.copyOf(requiredKeys);
        if (meanOutputTokens <= 0) {
            throw new IllegalArgumentException("meanOutputTokens: " + meanOutputTokens + " (expected: > 0)");
        }
        if (outputSpread < 0 || outputSpread >= meanOutputTokens) {
            throw new IllegalArgumentException(
                    "outputSpread: " + outputSpread + " (expected: >= 0 and < meanOutputTokens " + meanOutputTokens + ")");
        }
        if (defaultMaxTokens <= 0) {
            throw new IllegalArgumentException("defaultMaxTokens: " + defaultMaxTokens + " (expected: > 0)");
        }
        Objects.requireNonNull(dailyResetZone, "dailyResetZone");
    }

    /** The defaults for a flavour: unlimited, no faults, instant, the provider's usual hints. */
    public static MockConfig defaults(Flavour flavour) {
        return builder(flavour).build();
    }

    /** A builder with the defaults for {@code flavour}. */
    public static Builder builder(Flavour flavour) {
        return new Builder(flavour);
    }

    public Builder toBuilder() {
        return new Builder(flavour)
                .host(host)
                .port(port)
                .limits(limits)
                .keepBehaviour(behaviour)
                .faults(faults)
                .latency(latency)
                .retryAfter(retryAfter)
                .headerMode(headerMode)
                .ietfHeaders(ietfHeaders)
                .ietfSplitLines(ietfSplitLines)
                .rateLimitBody(rateLimitBody)
                .requiredKeys(requiredKeys)
                .seed(seed)
                .output(meanOutputTokens, outputSpread)
                .defaultMaxTokens(defaultMaxTokens)
                .dailyResetZone(dailyResetZone);
    }

    /** Builds a {@link MockConfig}. */
    public static final class Builder {
        private final Flavour flavour;
        private String host = DEFAULT_HOST;
        private int port;
        private ProviderLimits limits = ProviderLimits.UNLIMITED;
        private ProviderBehaviour behaviour = ProviderBehaviour.REFERENCE;
        private FaultConfig faults = FaultConfig.NONE;
        private LatencyConfig latency = LatencyConfig.INSTANT;
        private RetryAfterConfig retryAfter;
        private HeaderMode headerMode = HeaderMode.FULL;
        private boolean ietfHeaders;
        private boolean ietfSplitLines;
        private RateLimitBody rateLimitBody = RateLimitBody.STANDARD;
        private Set<String> requiredKeys = Set.of();
        private long seed = 42;
        private long meanOutputTokens = 64;
        private long outputSpread = 32;
        private long defaultMaxTokens = 4_096;
        private ZoneId dailyResetZone = PACIFIC;

        private Builder(Flavour flavour) {
            this.flavour = Objects.requireNonNull(flavour, "flavour");
            this.retryAfter = RetryAfterConfig.defaultFor(flavour);
        }

        public Builder host(String value) {
            this.host = value;
            return this;
        }

        public Builder port(int value) {
            this.port = value;
            return this;
        }

        public Builder limits(ProviderLimits value) {
            this.limits = value;
            return this;
        }

        /**
         * How the limits are enforced and reported. Also sets what the behaviour decides on the wire
         * (later calls may override): no rate-limit headers when it sends none; no
         * {@code Retry-After} or {@code retry-after-ms} when it announces no wait, and for Gemini the
         * Vertex body without {@code RetryInfo}.
         */
        public Builder behaviour(ProviderBehaviour value) {
            this.behaviour = Objects.requireNonNull(value, "behaviour");
            if (value.headers() == HeaderReport.ABSENT) {
                this.headerMode = HeaderMode.NONE;
            }
            if (value.retryAfter() == RetryAfterMeaning.ABSENT) {
                this.retryAfter = RetryAfterConfig.of(RetryAfterForm.ABSENT, false);
                if (flavour == Flavour.GEMINI) {
                    this.rateLimitBody = RateLimitBody.ALTERNATE;
                }
            }
            return this;
        }

        private Builder keepBehaviour(ProviderBehaviour value) {
            this.behaviour = value;
            return this;
        }

        public Builder faults(FaultConfig value) {
            this.faults = value;
            return this;
        }

        public Builder latency(LatencyConfig value) {
            this.latency = value;
            return this;
        }

        public Builder retryAfter(RetryAfterConfig value) {
            this.retryAfter = value;
            return this;
        }

        public Builder headerMode(HeaderMode value) {
            this.headerMode = value;
            return this;
        }

        public Builder ietfHeaders(boolean value) {
            this.ietfHeaders = value;
            return this;
        }

        public Builder ietfSplitLines(boolean value) {
            this.ietfSplitLines = value;
            return this;
        }

        public Builder rateLimitBody(RateLimitBody value) {
            this.rateLimitBody = value;
            return this;
        }

        public Builder requiredKeys(Set<String> value) {
            this.requiredKeys = value;
            return this;
        }

        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        public Builder output(long mean, long spread) {
            this.meanOutputTokens = mean;
            this.outputSpread = spread;
            return this;
        }

        public Builder defaultMaxTokens(long value) {
            this.defaultMaxTokens = value;
            return this;
        }

        public Builder dailyResetZone(ZoneId value) {
            this.dailyResetZone = value;
            return this;
        }

        public MockConfig build() {
            return new MockConfig(flavour, host, port, limits, behaviour, faults, latency, retryAfter, headerMode, ietfHeaders,
                    ietfSplitLines, rateLimitBody, requiredKeys, seed, meanOutputTokens, outputSpread, defaultMaxTokens,
                    dailyResetZone);
        }
    }
}
