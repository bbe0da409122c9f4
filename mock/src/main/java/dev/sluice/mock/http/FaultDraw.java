package dev.sluice.mock.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The faults one request gets: drawn from the seeded generator (always the same number of draws,
 * so one request's luck does not shift the next one's) or forced by the {@code x-mock-fault} header.
 *
 * @param before what happens instead of admission, if anything
 * @param spike whether a latency spike delays the answer
 * @param during what goes wrong with the body of an admitted request, if anything
 */
record FaultDraw(Before before, boolean spike, During during) {

    enum Before {
        NONE(""),
        RESET("reset"),
        SERVER_ERROR("server_error"),
        OVERLOADED("overloaded");

        final String label;

        Before(String label) {
            this.label = label;
        }
    }

    enum During {
        NONE(""),
        RESET_MID_STREAM("reset_mid_stream"),
        GARBAGE("garbage"),
        TRUNCATE("truncate"),
        STREAM_ERROR("stream_error");

        final String label;

        During(String label) {
            this.label = label;
        }
    }

    static final FaultDraw NONE = new FaultDraw(Before.NONE, false, During.NONE);

    static FaultDraw draw(FaultConfig f, RandomGenerator random) {
        double[] u = new double[8];
        for (int i = 0; i < u.length; i++) {
            u[i] = random.nextDouble();
        }
        Before before = u[0] < f.connectionReset() ? Before.RESET
                : u[1] < f.serverError() ? Before.SERVER_ERROR
                : u[2] < f.overloaded() ? Before.OVERLOADED
                : Before.NONE;
        During during = u[4] < f.midStreamReset() ? During.RESET_MID_STREAM
                : u[5] < f.garbageBody() ? During.GARBAGE
                : u[6] < f.truncatedStream() ? During.TRUNCATE
                : u[7] < f.streamErrorEvent() ? During.STREAM_ERROR
                : During.NONE;
        return new FaultDraw(before, u[3] < f.latencySpike(), during);
    }

    /** Parses {@code x-mock-fault}: comma-separated fault names. */
    static FaultDraw forced(String header) {
        Before before = Before.NONE;
        boolean spike = false;
        During during = During.NONE;
        for (String raw : header.split(",")) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (name.equals("spike")) {
                spike = true;
                continue;
            }
            Before b = find(Before.values(), name);
            During d = find(During.values(), name);
            if (b != null) {
                before = b;
            } else if (d != null) {
                during = d;
            } else {
                throw new CallReader.BadRequest(MockProviderServer.HEADER_FAULT + ": unknown fault '" + name
                        + "' (expected: reset, server_error, overloaded, spike, reset_mid_stream, garbage, truncate,"
                        + " stream_error)");
            }
        }
        return new FaultDraw(before, spike, during);
    }

    private static <E extends Enum<E>> E find(E[] values, String label) {
        for (E e : values) {
            String l = e instanceof Before b ? b.label : ((During) e).label;
            if (!l.isEmpty() && l.equals(label)) {
                return e;
            }
        }
        return null;
    }

    /** The labels of the faults in this draw, for the statistics. */
    List<String> labels() {
        List<String> out = new ArrayList<>();
        if (before != Before.NONE) {
            out.add(before.label);
        }
        if (spike) {
            out.add("spike");
        }
        if (during != During.NONE) {
            out.add(during.label);
        }
        return out;
    }
}
