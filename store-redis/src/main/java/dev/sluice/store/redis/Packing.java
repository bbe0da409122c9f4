package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.store.BucketPlan;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Arguments in the binary forms {@code sluice.lua} reads with its struct library (little-endian;
 * the formats are described at the top of the script). Doubles travel with every bit, so the
 * script computes with exactly the numbers the in-memory store uses.
 */
final class Packing {

    private Packing() {}

    /**
     * Per bucket: path index and dimension count, then per dimension ordinal, capacity, refill per
     * nano and ceiling (the largest request it can ever take).
     */
    static byte[] plans(BucketPlan[] plans, int[] pathIndex) {
        int size = 0;
        for (BucketPlan p : plans) {
            size += 2 + 25 * p.limitedDimensions().length;
        }
        ByteBuffer b = buffer(size);
        for (int i = 0; i < plans.length; i++) {
            int[] dims = plans[i].limitedDimensions();
            b.put((byte) pathIndex[i]).put((byte) dims.length);
            for (int d : dims) {
                Dimension dim = Dimension.byOrdinal(d);
                b.put((byte) d).putDouble(plans[i].capacity(dim)).putDouble(plans[i].refillPerNano(dim))
                        .putDouble(plans[i].ceiling(dim));
            }
        }
        return b.array();
    }

    /** Bit per limited dimension of {@code plan}. */
    static int mask(BucketPlan plan) {
        int m = 0;
        for (int d : plan.limitedDimensions()) {
            m |= 1 << d;
        }
        return m;
    }

    /** A clock reading for a script on test time: now in nanoseconds and epoch milliseconds. */
    static byte[] clock(long nanos, long epochMillis) {
        return buffer(16).putDouble(nanos).putDouble(epochMillis).array();
    }

    static byte[] calendar(DayTable t) {
        ByteBuffer b = buffer(8 * (1 + DayTable.MIDNIGHTS + t.monthEnds().length)).putDouble(t.firstDay());
        for (long m : t.midnights()) {
            b.putDouble(m);
        }
        for (long e : t.monthEnds()) {
            b.putDouble(e);
        }
        return b.array();
    }

    /** An amount per dimension, as doubles (exact up to 2^53). */
    static byte[] amounts(long[] amounts) {
        ByteBuffer b = buffer(8 * Dimension.COUNT);
        for (int d = 0; d < Dimension.COUNT; d++) {
            b.putDouble(amounts[d]);
        }
        return b.array();
    }

    /**
     * A lease as its sorted-set member: amounts, id, then per bucket the dimensions taken on it
     * and its key. It carries what any replica needs to end the lease when it expires.
     */
    static byte[] lease(String id, long[] amounts, byte[][] bucketKeys, int[] planMasks) {
        byte[] idBytes = id.getBytes(StandardCharsets.US_ASCII);
        int amountMask = 0;
        for (int d = 0; d < Dimension.COUNT; d++) {
            if (amounts[d] > 0) {
                amountMask |= 1 << d;
            }
        }
        int size = 8 * Dimension.COUNT + 2 + idBytes.length + 1;
        for (byte[] k : bucketKeys) {
            size += 4 + k.length;
        }
        ByteBuffer b = buffer(size);
        for (int d = 0; d < Dimension.COUNT; d++) {
            b.putDouble(amounts[d]);
        }
        b.putShort((short) idBytes.length).put(idBytes).put((byte) bucketKeys.length);
        for (int i = 0; i < bucketKeys.length; i++) {
            b.putShort((short) (planMasks[i] & amountMask)).putShort((short) bucketKeys[i].length).put(bucketKeys[i]);
        }
        return b.array();
    }

    /** A key as the script gets it; keys longer than a lease can name are refused. */
    static byte[] key(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xFFFF) {
            throw new IllegalArgumentException("key: " + b.length + " bytes (expected: at most 65535)");
        }
        return b;
    }

    private static ByteBuffer buffer(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
