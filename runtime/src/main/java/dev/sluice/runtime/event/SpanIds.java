package dev.sluice.runtime.event;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** New W3C span ids: 16 lowercase hex digits, never all zeros (which W3C trace context forbids). */
public final class SpanIds {

    private SpanIds() {}

    /** A new random span id. */
    public static String random() {
        long v;
        do {
            v = ThreadLocalRandom.current().nextLong();
        } while (v == 0);
        return HexFormat.of().toHexDigits(v);
    }
}
