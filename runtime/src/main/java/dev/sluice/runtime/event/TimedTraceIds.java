package dev.sluice.runtime.event;

import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The trace ids Sluice makes (for a request without a {@code traceparent}) lead with the time they
 * were made: 12 hex digits of epoch milliseconds (48 bits, enough until the year 10889), then 20
 * random ones (80 bits; W3C trace context asks only the right-most 7 bytes to be random). Why: the
 * ledger keeps no index on trace ids (one on a random value costs every row a page of its own once
 * the table is large), so it finds a request by the time around it; a trace id that carries its time
 * is found by itself. A caller's trace id is whatever it is: {@link #timeOf} of it is a meaningless
 * time, which only costs a look in the wrong place.
 */
public final class TimedTraceIds {

    /** How many hex digits of a made trace id are its time. */
    public static final int TIME_DIGITS = 12;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TimedTraceIds() {}

    /** A new trace id (32 lowercase hex digits) leading with {@code epochMillis}. */
    public static String make(long epochMillis) {
        if (epochMillis <= 0 || epochMillis >= 1L << 48) {
            throw new IllegalArgumentException("epochMillis: " + epochMillis + " (expected: 1 to 2^48 - 1)");
        }
        char[] out = new char[32];
        for (int i = 0; i < TIME_DIGITS; i++) {
            out[i] = HEX[(int) (epochMillis >>> (4 * (TIME_DIGITS - 1 - i))) & 15];
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long a = r.nextLong();
        long b = r.nextLong();
        for (int i = TIME_DIGITS; i < 32; i++) {
            long v = i < 16 ? a : b;
            out[i] = HEX[(int) (v >>> (4 * (i % 16))) & 15];
        }
        return new String(out);
    }

    /**
     * The time at the front of {@code traceId} if it has 12 hex digits there: when it was made, for
     * one Sluice made; empty for anything else.
     */
    public static OptionalLong timeOf(String traceId) {
        if (traceId.length() < TIME_DIGITS) {
            return OptionalLong.empty();
        }
        long t = 0;
        for (int i = 0; i < TIME_DIGITS; i++) {
            int d = Character.digit(traceId.charAt(i), 16);
            if (d < 0) {
                return OptionalLong.empty();
            }
            t = t << 4 | d;
        }
        return OptionalLong.of(t);
    }
}
