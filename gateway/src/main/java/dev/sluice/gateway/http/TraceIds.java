package dev.sluice.gateway.http;

import dev.sluice.runtime.event.TimedTraceIds;
import java.util.concurrent.ThreadLocalRandom;

/** W3C trace context: take the caller's trace id from {@code traceparent}, or make one. */
public final class TraceIds {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TraceIds() {}

    /**
     * The trace id of a valid {@code traceparent} header, else a fresh one (32 hex digits) leading
     * with the time, so the ledger finds the request by it alone ({@link TimedTraceIds}).
     */
    public static String fromTraceparent(String traceparent) {
        return valid(traceparent) ? traceparent.strip().substring(3, 35) : TimedTraceIds.make(System.currentTimeMillis());
    }

    /** The caller's span id (the parent of Sluice's span) of a valid {@code traceparent} header; null otherwise. */
    public static String parentSpanId(String traceparent) {
        return valid(traceparent) ? traceparent.strip().substring(36, 52) : null;
    }

    private static boolean valid(String traceparent) {
        if (traceparent == null || traceparent.length() < 55) {
            return false;
        }
        String t = traceparent.strip();
        return t.length() >= 55 && t.charAt(2) == '-' && t.charAt(35) == '-' && t.charAt(52) == '-'
                && hex(t, 0, 2) && hex(t, 3, 35) && hex(t, 36, 52) && hex(t, 53, 55) && !t.startsWith("ff")
                && !zero(t, 3, 35) && !zero(t, 36, 52);
    }

    /** A {@code traceparent} for the upstream call: the same trace, a new span of ours, sampled. */
    public static String upstreamTraceparent(String traceId) {
        return "00-" + traceId + "-" + random(8) + "-01";
    }

    private static String random(int bytes) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        char[] out = new char[bytes * 2];
        for (int i = 0; i < bytes; i++) {
            int b = r.nextInt(256);
            out[2 * i] = HEX[b >>> 4];
            out[2 * i + 1] = HEX[b & 15];
        }
        return new String(out);
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean zero(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }
}
