package dev.sluice.signal;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The server's explicit wait hints: {@code retry-after-ms}, {@code x-ms-retry-after-ms} and
 * {@code Retry-After}, and the {@code x-should-retry} override. Waits are returned uncapped but
 * saturated; the normaliser applies the 24 h cap.
 */
final class RetryHeaders {

    private RetryHeaders() {}

    /**
     * Milliseconds as a non-negative decimal ({@code 2000}, {@code 1500.5}). When a header repeats,
     * the longest valid wait wins: if the lines disagree, waiting longer is the safe reading.
     */
    static OptionalLong millisHeader(HeaderValues headers, String name) {
        return longest(headers, headers.all(name, HeaderValues.MAX_SCALAR_LENGTH), 1, 0, false);
    }

    /**
     * {@code Retry-After}: delay-seconds (fractions accepted, as every official SDK does) or an
     * HTTP-date in any of its three forms. A date in the past means "now": 0.
     */
    static OptionalLong retryAfter(HeaderValues headers, long nowEpochMillis) {
        return longest(headers, headers.all("retry-after", HeaderValues.MAX_SCALAR_LENGTH), 1000, nowEpochMillis, true);
    }

    private static OptionalLong longest(HeaderValues headers, List<String> values, long unitMillis,
            long nowEpochMillis, boolean datesAllowed) {
        OptionalLong best = OptionalLong.empty();
        for (String value : values) {
            OptionalLong millis = Values.decimalMillis(value, unitMillis);
            if (millis.isEmpty() && datesAllowed) {
                OptionalLong at = HttpDates.parseEpochMillis(value, nowEpochMillis);
                if (at.isPresent()) {
                    millis = OptionalLong.of(Values.millisUntil(at.getAsLong(), nowEpochMillis));
                }
            }
            if (millis.isEmpty()) {
                headers.malformed().add();
            } else if (best.isEmpty() || millis.getAsLong() > best.getAsLong()) {
                best = millis;
            }
        }
        return best;
    }

    /** {@code x-should-retry: true|false}, which the official SDKs let override the status. */
    static Optional<Boolean> shouldRetry(HeaderValues headers) {
        Optional<String> value = headers.first("x-should-retry");
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (value.get().equalsIgnoreCase("true")) {
            return Optional.of(true);
        }
        if (value.get().equalsIgnoreCase("false")) {
            return Optional.of(false);
        }
        headers.malformed().add();
        return Optional.empty();
    }
}
