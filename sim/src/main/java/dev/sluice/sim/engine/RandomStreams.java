package dev.sluice.sim.engine;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Independent, named random streams derived from one seed. Each part of the simulation (a
 * workload's arrivals, its request sizes, a provider's latency, its faults, client jitter) draws
 * from its own stream, so a strategy that makes more provider calls does not shift the arrivals
 * every other strategy sees: the offered workload is identical across strategies.
 */
public final class RandomStreams {

    private final long seed;

    public RandomStreams(long seed) {
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    /** The stream called {@code name}: the same seed and name always give the same sequence. */
    public SplittableRandom stream(String name) {
        return new SplittableRandom(mix(seed ^ fnv1a(name)));
    }

    private static long fnv1a(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64 finaliser: spreads nearby seeds far apart. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
