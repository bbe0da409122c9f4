package dev.sluice.mock.http;

import java.time.Duration;
import java.util.Objects;

/**
 * How long answers take: a time to first token, then output at a steady rate. The default is
 * instant, so tests are fast.
 *
 * @param timeToFirstToken delay before the first byte of a successful answer; {@code >= 0}
 * @param tokensPerSecond output rate; 0 means no delay at all
 * @param tokensPerChunk output tokens per streamed chunk; positive
 */
public record LatencyConfig(Duration timeToFirstToken, double tokensPerSecond, int tokensPerChunk) {

    /** No delay, four tokens a chunk. */
    public static final LatencyConfig INSTANT = new LatencyConfig(Duration.ZERO, 0, 4);

    public LatencyConfig {
        Objects.requireNonNull(timeToFirstToken, "timeToFirstToken");
        if (timeToFirstToken.isNegative()) {
            throw new IllegalArgumentException("timeToFirstToken: " + timeToFirstToken + " (expected: >= 0)");
        }
        if (!Double.isFinite(tokensPerSecond) || tokensPerSecond < 0) {
            throw new IllegalArgumentException("tokensPerSecond: " + tokensPerSecond + " (expected: finite, >= 0)");
        }
        if (tokensPerChunk <= 0) {
            throw new IllegalArgumentException("tokensPerChunk: " + tokensPerChunk + " (expected: > 0)");
        }
    }

    /** Milliseconds to produce {@code tokens} at {@link #tokensPerSecond()}, rounded. */
    public long millisFor(long tokens) {
        return tokensPerSecond == 0 ? 0 : Math.round(tokens * 1000.0 / tokensPerSecond);
    }
}
