package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A distribution of whole numbers (token counts). Every kind draws exactly one value from its
 * random stream per sample, so the sequence of samples depends only on the seed.
 */
public sealed interface Distribution {

    /** One sample, at least {@code 0}. */
    long sample(SplittableRandom random);

    /** The mean, for capacity arithmetic and reports. */
    double mean();

    /** Always {@code value}. */
    record Fixed(long value) implements Distribution {
        public Fixed {
            ConfigException.require(value >= 0, "fixed", ">= 0", value);
        }

        @Override
        public long sample(SplittableRandom random) {
            random.nextLong();
            return value;
        }

        @Override
        public double mean() {
            return value;
        }
    }

    /** Uniform over {@code [min, max]}. */
    record Uniform(long min, long max) implements Distribution {
        public Uniform {
            ConfigException.require(min >= 0, "min", ">= 0", min);
            ConfigException.require(max >= min, "max", ">= min " + min, max);
        }

        @Override
        public long sample(SplittableRandom random) {
            return min + (long) Math.floor(random.nextDouble() * (max - min + 1));
        }

        @Override
        public double mean() {
            return (min + max) / 2.0;
        }
    }

    /**
     * Log-normal with the given median and 95th percentile, cut at {@code max}: the long right
     * tail of prompt and answer lengths.
     */
    record LogNormal(double median, double p95, long max) implements Distribution {
        public LogNormal {
            ConfigException.require(median > 0, "median", "> 0", median);
            ConfigException.require(p95 >= median, "p95", ">= median " + median, p95);
            ConfigException.require(max >= 1, "max", ">= 1", max);
        }

        double sigma() {
            return Math.log(p95 / median) / 1.6448536269514722;
        }

        @Override
        public long sample(SplittableRandom random) {
            double u = Math.min(Math.max(random.nextDouble(), 1e-12), 1 - 1e-12);
            double z = Normal.inverseCdf(u);
            return Math.min(max, Math.max(1, Math.round(median * Math.exp(sigma() * z))));
        }

        @Override
        public double mean() {
            double s = sigma();
            return Math.min(max, median * Math.exp(s * s / 2));
        }
    }

    /** Exponential with the given mean. */
    record Exponential(double mean) implements Distribution {
        public Exponential {
            ConfigException.require(mean > 0, "mean", "> 0", mean);
        }

        @Override
        public long sample(SplittableRandom random) {
            return Math.round(-mean * Math.log(1 - random.nextDouble()));
        }
    }

    /**
     * Parses {@code 512}, {@code {fixed: 512}}, {@code {uniform: [100, 900]}},
     * {@code {lognormal: {median: 800, p95: 4000, max: 32000}}} or {@code {exponential: 300}}.
     */
    static Distribution parse(YamlNode n) {
        n.required();
        if (!n.isMapping()) {
            return new Fixed(n.longValue(0));
        }
        n.allowOnly(Set.of("fixed", "uniform", "lognormal", "exponential"));
        try {
            if (n.get("fixed").present()) {
                return new Fixed(n.get("fixed").longValue(0));
            }
            if (n.get("uniform").present()) {
                var items = n.get("uniform").items();
                ConfigException.require(items.size() == 2, n.get("uniform").path(), "[min, max]", items.size() + " values");
                return new Uniform(items.get(0).longValue(0), items.get(1).longValue(0));
            }
            if (n.get("lognormal").present()) {
                YamlNode l = n.get("lognormal").allowOnly(Set.of("median", "p95", "max"));
                return new LogNormal(l.get("median").requiredDouble(), l.get("p95").requiredDouble(),
                        l.get("max").longValue(Long.MAX_VALUE / 4));
            }
            if (n.get("exponential").present()) {
                return new Exponential(n.get("exponential").requiredDouble());
            }
        } catch (ConfigException e) {
            throw e.path().startsWith(n.path()) ? e : e.under(n.path());
        }
        throw new ConfigException(n.path(), "one of fixed, uniform, lognormal, exponential", "none");
    }
}

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
final class Normal {

    private static final double[] A = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    private static final double[] B = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01};
    private static final double[] C = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    private static final double[] D = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
        3.754408661907416e+00};

    private Normal() {}

    static double inverseCdf(double p) {
        double low = 0.02425;
        if (p < low) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
                    / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
        }
        if (p > 1 - low) {
            double q = Math.sqrt(-2 * Math.log(1 - p));
            return -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
                    / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
                / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
    }
}
