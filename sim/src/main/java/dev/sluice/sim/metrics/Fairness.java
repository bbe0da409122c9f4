package dev.sluice.sim.metrics;

import java.util.Arrays;

/**
 * Weighted max-min fairness over tenants sharing one limit. The fair allocation of what was served
 * is found by water-filling: every tenant gets {@code min(demand, level x weight)}, with the level
 * set so the allocations add up to the total served.
 */
final class Fairness {

    private Fairness() {}

    /** Fair allocations of {@code total} given demands and weights (same order). */
    static double[] fairShares(double[] demand, double[] weight, double total) {
        int n = demand.length;
        double[] fair = new double[n];
        boolean[] capped = new boolean[n];
        double left = total;
        while (true) {
            double w = 0;
            for (int i = 0; i < n; i++) {
                if (!capped[i]) {
                    w += weight[i];
                }
            }
            if (w == 0 || left <= 0) {
                break;
            }
            double level = left / w;
            boolean changed = false;
            for (int i = 0; i < n; i++) {
                if (!capped[i] && demand[i] <= level * weight[i]) {
                    fair[i] = demand[i];
                    left -= demand[i];
                    capped[i] = true;
                    changed = true;
                }
            }
            if (!changed) {
                for (int i = 0; i < n; i++) {
                    if (!capped[i]) {
                        fair[i] = level * weight[i];
                    }
                }
                break;
            }
        }
        return fair;
    }

    /**
     * Jain's index of {@code served / fair} over the tenants that wanted more than their fair share
     * (for them fair is proportional to weight, so this is the weighted Jain index); 1 when fewer
     * than two such tenants exist.
     */
    static double jain(double[] demand, double[] served, double[] fair) {
        double sum = 0;
        double sumSq = 0;
        int n = 0;
        for (int i = 0; i < demand.length; i++) {
            if (fair[i] > 0 && demand[i] > fair[i] * 1.001) {
                double x = served[i] / fair[i];
                sum += x;
                sumSq += x * x;
                n++;
            }
        }
        return n < 2 || sumSq == 0 ? 1.0 : sum * sum / (n * sumSq);
    }

    /** How many tenants wanted more than their fair share. */
    static int contended(double[] demand, double[] fair) {
        int n = 0;
        for (int i = 0; i < demand.length; i++) {
            if (fair[i] > 0 && demand[i] > fair[i] * 1.001) {
                n++;
            }
        }
        return n;
    }

    /** Total-variation distance between served shares and fair shares: 0 is exact, 1 is disjoint. */
    static double shareError(double[] served, double[] fair) {
        double s = Arrays.stream(served).sum();
        double f = Arrays.stream(fair).sum();
        if (s <= 0 || f <= 0) {
            return 0;
        }
        double d = 0;
        for (int i = 0; i < served.length; i++) {
            d += Math.abs(served[i] / s - fair[i] / f);
        }
        return d / 2;
    }
}
