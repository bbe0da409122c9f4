package dev.sluice.signal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;

/**
 * Go {@code time.Duration} strings as OpenAI sends them in {@code x-ratelimit-reset-*} and in
 * "Please try again in 125ms.": {@code 1s}, {@code 6m0s}, {@code 2.5s}, {@code 1h2m3.5s},
 * {@code 120ms}, {@code 15us}, {@code 15µs}, {@code 0}. Negative durations mean nothing for a wait
 * and are rejected, as is anything beyond {@link Long#MAX_VALUE} nanoseconds.
 */
final class GoDuration {

    private static final int MAX_LENGTH = 64;
    private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

    private GoDuration() {}

    /** The duration in nanoseconds, rounded up; empty when the text is not a Go duration. */
    static OptionalLong parseNanos(String text) {
        String s = text.strip();
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return OptionalLong.empty();
        }
        int i = s.charAt(0) == '+' ? 1 : 0;
        if (s.length() - i == 1 && s.charAt(i) == '0') {
            return OptionalLong.of(0);
        }
        if (i == s.length()) {
            return OptionalLong.empty();
        }
        BigDecimal total = BigDecimal.ZERO;
        while (i < s.length()) {
            int intStart = i;
            i = skipDigits(s, i);
            String whole = s.substring(intStart, i);
            String fraction = "";
            if (i < s.length() && s.charAt(i) == '.') {
                int fractionStart = ++i;
                i = skipDigits(s, i);
                fraction = s.substring(fractionStart, i);
            }
            if (whole.isEmpty() && fraction.isEmpty()) {
                return OptionalLong.empty();
            }
            int unitStart = i;
            while (i < s.length() && !Values.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            long unit = unitNanos(s.substring(unitStart, i));
            if (unit == 0) {
                return OptionalLong.empty();
            }
            BigDecimal number = new BigDecimal((whole.isEmpty() ? "0" : whole) + "."
                    + (fraction.isEmpty() ? "0" : fraction));
            total = total.add(number.multiply(BigDecimal.valueOf(unit)));
            if (total.compareTo(MAX_NANOS) > 0) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(total.setScale(0, RoundingMode.CEILING).longValue());
    }

    /** The duration in whole milliseconds, rounded up so a wait is never cut short. */
    static OptionalLong parseMillis(String text) {
        OptionalLong nanos = parseNanos(text);
        return nanos.isPresent() ? OptionalLong.of(Math.ceilDiv(nanos.getAsLong(), 1_000_000L)) : nanos;
    }

    private static int skipDigits(String s, int from) {
        int i = from;
        while (i < s.length() && Values.isDigit(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Nanoseconds per unit, or 0 for an unknown unit. Go accepts both the micro sign and mu. */
    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "\u00b5s", "\u03bcs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 0L;
        };
    }
}
