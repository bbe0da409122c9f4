package dev.sluice.signal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;

/** Number parsing shared by the header readers: total functions, no exceptions, no overflow. */
final class Values {

    /** 18 digits always fit in a long; longer counts are treated as malformed rather than guessed. */
    private static final int MAX_INTEGER_DIGITS = 18;
    /** Longer decimal strings are hostile, not precise. */
    private static final int MAX_DECIMAL_LENGTH = 64;
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private Values() {}

    /** {@code 1*DIGIT} of at most 18 digits, else empty. */
    static OptionalLong nonNegativeInteger(String text) {
        if (text.isEmpty() || text.length() > MAX_INTEGER_DIGITS) {
            return OptionalLong.empty();
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isDigit(c)) {
                return OptionalLong.empty();
            }
            value = value * 10 + (c - '0');
        }
        return OptionalLong.of(value);
    }

    /**
     * {@code 1*DIGIT ["." 1*DIGIT]} times {@code unitMillis}, rounded up to whole milliseconds and
     * saturated at {@link Long#MAX_VALUE}; empty for signs, exponents, NaN and anything else.
     */
    static OptionalLong decimalMillis(String text, long unitMillis) {
        if (!isPlainDecimal(text)) {
            return OptionalLong.empty();
        }
        BigDecimal millis = new BigDecimal(text).multiply(BigDecimal.valueOf(unitMillis))
                .setScale(0, RoundingMode.CEILING);
        return OptionalLong.of(millis.compareTo(LONG_MAX) > 0 ? Long.MAX_VALUE : millis.longValue());
    }

    private static boolean isPlainDecimal(String text) {
        int length = text.length();
        if (length == 0 || length > MAX_DECIMAL_LENGTH) {
            return false;
        }
        int i = 0;
        while (i < length && isDigit(text.charAt(i))) {
            i++;
        }
        if (i == 0) {
            return false;
        }
        if (i == length) {
            return true;
        }
        if (text.charAt(i) != '.' || i == length - 1) {
            return false;
        }
        for (i++; i < length; i++) {
            if (!isDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Milliseconds from {@code now} until {@code target}: 0 when past, saturated when absurdly far. */
    static long millisUntil(long targetEpochMillis, long nowEpochMillis) {
        if (targetEpochMillis <= nowEpochMillis) {
            return 0;
        }
        long delay = targetEpochMillis - nowEpochMillis;
        return delay < 0 ? Long.MAX_VALUE : delay;
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
