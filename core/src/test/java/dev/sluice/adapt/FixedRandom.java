package dev.sluice.adapt;

import java.util.random.RandomGenerator;

/** A random generator whose every double draw is the same value, so tests can state exact jitter. */
final class FixedRandom implements RandomGenerator {

    private final double value;

    FixedRandom(double value) {
        this.value = value;
    }

    @Override
    public long nextLong() {
        return (long) (value * 0x1.0p53) << 11;
    }

    @Override
    public double nextDouble() {
        return value;
    }
}
