package dev.sluice.mock.http;

import java.time.Duration;
import java.util.Objects;

/**
 * Faults injected at random, each with its own probability per request (drawn from the server's
 * seeded generator, so a run is reproducible). A request can also force one with the
 * {@code x-mock-fault} header; see {@link MockProviderServer}.
 *
 * @param serverError a 500 before admission
 * @param overloaded an overload before admission: 529 (Anthropic), 503 (OpenAI, Gemini), 429
 *     "high demand" (Azure)
 * @param connectionReset the connection is closed before any response (the client sees it drop)
 * @param midStreamReset the connection is closed halfway through a streamed output (or, unstreamed,
 *     after the work is done and before the answer)
 * @param garbageBody a 200 whose body is not JSON (or an SSE line that is not)
 * @param truncatedStream a stream ends cleanly halfway, without its final chunks
 * @param streamErrorEvent a stream carries an error event halfway (Anthropic {@code event: error})
 * @param latencySpike an extra delay of {@code spikeDelay} before a successful answer
 * @param spikeDelay the extra delay of a latency spike
 * @param quotaExhausted every request gets the flavour's permanent 429 (OpenAI
 *     {@code insufficient_quota}, Anthropic spend cap, Azure 86,400 s, Gemini limit 0)
 * @param shouldRetry the {@code x-should-retry} header on error responses
 */
public record FaultConfig(
        double serverError,
        double overloaded,
        double connectionReset,
        double midStreamReset,
        double garbageBody,
        double truncatedStream,
        double streamErrorEvent,
        double latencySpike,
        Duration spikeDelay,
        boolean quotaExhausted,
        ShouldRetry shouldRetry) {

    /** No faults. */
    public static final FaultConfig NONE = builder().build();

    public FaultConfig {
        requireProbability("serverError", serverError);
        requireProbability("overloaded", overloaded);
        requireProbability("connectionReset", connectionReset);
        requireProbability("midStreamReset", midStreamReset);
        requireProbability("garbageBody", garbageBody);
        requireProbability("truncatedStream", truncatedStream);
        requireProbability("streamErrorEvent", streamErrorEvent);
        requireProbability("latencySpike", latencySpike);
        Objects.requireNonNull(spikeDelay, "spikeDelay");
        if (spikeDelay.isNegative()) {
            throw new IllegalArgumentException("spikeDelay: " + spikeDelay + " (expected: >= 0)");
        }
        Objects.requireNonNull(shouldRetry, "shouldRetry");
    }

    private static void requireProbability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + ": " + p + " (expected: between 0 and 1)");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .serverError(serverError)
                .overloaded(overloaded)
                .connectionReset(connectionReset)
                .midStreamReset(midStreamReset)
                .garbageBody(garbageBody)
                .truncatedStream(truncatedStream)
                .streamErrorEvent(streamErrorEvent)
                .latencySpike(latencySpike)
                .spikeDelay(spikeDelay)
                .quotaExhausted(quotaExhausted)
                .shouldRetry(shouldRetry);
    }

    /** Builds a {@link FaultConfig}; everything off, spikes of 1 s. */
    public static final class Builder {
        private double serverError;
        private double overloaded;
        private double connectionReset;
        private double midStreamReset;
        private double garbageBody;
        private double truncatedStream;
        private double streamErrorEvent;
        private double latencySpike;
        private Duration spikeDelay = Duration.ofSeconds(1);
        private boolean quotaExhausted;
        private ShouldRetry shouldRetry = ShouldRetry.ABSENT;

        private Builder() {}

        public Builder serverError(double p) {
            this.serverError = p;
            return this;
        }

        public Builder overloaded(double p) {
            this.overloaded = p;
            return this;
        }

        public Builder connectionReset(double p) {
            this.connectionReset = p;
            return this;
        }

        public Builder midStreamReset(double p) {
            this.midStreamReset = p;
            return this;
        }

        public Builder garbageBody(double p) {
            this.garbageBody = p;
            return this;
        }

        public Builder truncatedStream(double p) {
            this.truncatedStream = p;
            return this;
        }

        public Builder streamErrorEvent(double p) {
            this.streamErrorEvent = p;
            return this;
        }

        public Builder latencySpike(double p) {
            this.latencySpike = p;
            return this;
        }

        public Builder spikeDelay(Duration d) {
            this.spikeDelay = d;
            return this;
        }

        public Builder quotaExhausted(boolean value) {
            this.quotaExhausted = value;
            return this;
        }

        public Builder shouldRetry(ShouldRetry value) {
            this.shouldRetry = value;
            return this;
        }

        public FaultConfig build() {
            return new FaultConfig(serverError, overloaded, connectionReset, midStreamReset, garbageBody,
                    truncatedStream, streamErrorEvent, latencySpike, spikeDelay, quotaExhausted, shouldRetry);
        }
    }
}
