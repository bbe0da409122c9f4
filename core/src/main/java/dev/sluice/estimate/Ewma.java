package dev.sluice.estimate;

/**
 * An exponentially weighted mean and the number of samples behind it; immutable, so it can be
 * swapped atomically.
 *
 * <p>Sample {@code n} weighs {@code max(1/n, smoothing)}: the first samples form a plain mean,
 * so the value does not lean on its starting point, and later ones age out exponentially.
 */
record Ewma(double value, long samples) {

    static final Ewma EMPTY = new Ewma(0.0, 0);

    Ewma add(double sample, double smoothing) {
        long n = samples + 1;
        double weight = Math.max(1.0 / n, smoothing);
        return new Ewma(value + weight * (sample - value), n);
    }
}
