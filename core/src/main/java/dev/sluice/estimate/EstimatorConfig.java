package dev.sluice.estimate;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of the {@link TokenEstimator}. Every field has a documented default ({@link #defaults()});
 * change single fields with {@link #builder()}.
 *
 * @param perMessageTokens      tokens added per message for its framing (default 3, as OpenAI chat
 *                              formats count)
 * @param perNameTokens         extra tokens for a message that carries a name (default 1)
 * @param replyPrimingTokens    tokens that prime the reply, once per request (default 3)
 * @param perToolTokens         tokens added per tool definition on top of its schema text (default
 *                              10; the learned ratio absorbs the rest)
 * @param lowDetailImageTokens  tokens per low-detail image (default 85)
 * @param highDetailImageTokens tokens per high- or auto-detail image (default 765, a 1024x1024 image
 *                              at high detail)
 * @param tokenizerPriorRatio   input correction for tokenizer profiles before enough samples
 *                              (default 1.0: the tokenizer is exact up to framing)
 * @param calibratedPriorRatio  input correction for calibrated profiles before enough samples
 *                              (default 1.15: errs towards reserving too much)
 * @param minRatioSamples       settled requests before the learned input ratio replaces the prior
 *                              (default 20)
 * @param smoothing             weight of a new sample in the exponentially weighted averages, in
 *                              (0, 1] (default 0.05: roughly the last 20 to 60 requests matter)
 * @param coldStartOutputTokens output reservation cap for a route with too little history (default
 *                              1024)
 * @param minOutputSamples      output samples before the route's p95 replaces the cold-start cap
 *                              (default 20)
 * @param outputWindowSamples   samples per output-history window; the p95 covers the newest one to
 *                              two windows (default 1000)
 * @param outputWindowAge       age after which an output-history window is retired even if it is
 *                              not full, so quiet routes relearn too (default 1 hour)
 * @param minCacheSamples       settled requests before the learned cached fraction is used
 *                              (default 20; until then no cache read is expected)
 */
public record EstimatorConfig(int perMessageTokens, int perNameTokens, int replyPrimingTokens, int perToolTokens,
        int lowDetailImageTokens, int highDetailImageTokens,
        double tokenizerPriorRatio, double calibratedPriorRatio, int minRatioSamples, double smoothing,
        int coldStartOutputTokens, int minOutputSamples, int outputWindowSamples, Duration outputWindowAge,
        int minCacheSamples) {

    /** Lowest input correction ever applied. */
    public static final double MIN_RATIO = 0.25;
    /** Highest input correction ever applied. */
    public static final double MAX_RATIO = 4.0;
    /** Longest output-history window; far beyond any useful value, it keeps nanosecond arithmetic exact. */
    public static final Duration MAX_WINDOW_AGE = Duration.ofDays(365);

    /** Validates every field. */
    public EstimatorConfig {
        atLeast("perMessageTokens", perMessageTokens, 0);
        atLeast("perNameTokens", perNameTokens, 0);
        atLeast("replyPrimingTokens", replyPrimingTokens, 0);
        atLeast("perToolTokens", perToolTokens, 0);
        atLeast("lowDetailImageTokens", lowDetailImageTokens, 0);
        atLeast("highDetailImageTokens", highDetailImageTokens, 0);
        ratio("tokenizerPriorRatio", tokenizerPriorRatio);
        ratio("calibratedPriorRatio", calibratedPriorRatio);
        atLeast("minRatioSamples", minRatioSamples, 1);
        if (!(smoothing > 0.0 && smoothing <= 1.0)) {
            throw new IllegalArgumentException("smoothing: " + smoothing + " (expected: > 0 and <= 1)");
        }
        atLeast("coldStartOutputTokens", coldStartOutputTokens, 1);
        atLeast("minOutputSamples", minOutputSamples, 1);
        atLeast("outputWindowSamples", outputWindowSamples, 1);
        Objects.requireNonNull(outputWindowAge, "outputWindowAge");
        if (outputWindowAge.isNegative() || outputWindowAge.isZero() || outputWindowAge.compareTo(MAX_WINDOW_AGE) > 0) {
            throw new IllegalArgumentException(
                    "outputWindowAge: " + outputWindowAge + " (expected: > 0 and <= " + MAX_WINDOW_AGE + ")");
        }
        atLeast("minCacheSamples", minCacheSamples, 1);
    }

    /** The documented defaults. */
    public static EstimatorConfig defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    private static void atLeast(String field, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: >= " + min + ")");
        }
    }

    private static void ratio(String field, double value) {
        if (!(value >= MIN_RATIO && value <= MAX_RATIO)) {
            throw new IllegalArgumentException(
                    field + ": " + value + " (expected: >= " + MIN_RATIO + " and <= " + MAX_RATIO + ")");
        }
    }

    /** Builds an {@link EstimatorConfig}; unset fields keep their defaults. */
    public static final class Builder {
        private int perMessageTokens = 3;
        private int perNameTokens = 1;
        private int replyPrimingTokens = 3;
        private int perToolTokens = 10;
        private int lowDetailImageTokens = 85;
        private int highDetailImageTokens = 765;
        private double tokenizerPriorRatio = 1.0;
        private double calibratedPriorRatio = 1.15;
        private int minRatioSamples = 20;
        private double smoothing = 0.05;
        private int coldStartOutputTokens = 1024;
        private int minOutputSamples = 20;
        private int outputWindowSamples = 1000;
        private Duration outputWindowAge = Duration.ofHours(1);
        private int minCacheSamples = 20;

        private Builder() {
        }

        /** See {@link EstimatorConfig#perMessageTokens()}. */
        public Builder perMessageTokens(int v) {
            perMessageTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#perNameTokens()}. */
        public Builder perNameTokens(int v) {
            perNameTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#replyPrimingTokens()}. */
        public Builder replyPrimingTokens(int v) {
            replyPrimingTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#perToolTokens()}. */
        public Builder perToolTokens(int v) {
            perToolTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#lowDetailImageTokens()}. */
        public Builder lowDetailImageTokens(int v) {
            lowDetailImageTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#highDetailImageTokens()}. */
        public Builder highDetailImageTokens(int v) {
            highDetailImageTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#tokenizerPriorRatio()}. */
        public Builder tokenizerPriorRatio(double v) {
            tokenizerPriorRatio = v;
            return this;
        }

        /** See {@link EstimatorConfig#calibratedPriorRatio()}. */
        public Builder calibratedPriorRatio(double v) {
            calibratedPriorRatio = v;
            return this;
        }

        /** See {@link EstimatorConfig#minRatioSamples()}. */
        public Builder minRatioSamples(int v) {
            minRatioSamples = v;
            return this;
        }

        /** See {@link EstimatorConfig#smoothing()}. */
        public Builder smoothing(double v) {
            smoothing = v;
            return this;
        }

        /** See {@link EstimatorConfig#coldStartOutputTokens()}. */
        public Builder coldStartOutputTokens(int v) {
            coldStartOutputTokens = v;
            return this;
        }

        /** See {@link EstimatorConfig#minOutputSamples()}. */
        public Builder minOutputSamples(int v) {
            minOutputSamples = v;
            return this;
        }

        /** See {@link EstimatorConfig#outputWindowSamples()}. */
        public Builder outputWindowSamples(int v) {
            outputWindowSamples = v;
            return this;
        }

        /** See {@link EstimatorConfig#outputWindowAge()}. */
        public Builder outputWindowAge(Duration v) {
            outputWindowAge = v;
            return this;
        }

        /** See {@link EstimatorConfig#minCacheSamples()}. */
        public Builder minCacheSamples(int v) {
            minCacheSamples = v;
            return this;
        }

        /** Validates and builds. */
        public EstimatorConfig build() {
            return new EstimatorConfig(perMessageTokens, perNameTokens, replyPrimingTokens, perToolTokens,
                    lowDetailImageTokens, highDetailImageTokens, tokenizerPriorRatio, calibratedPriorRatio,
                    minRatioSamples, smoothing, coldStartOutputTokens, minOutputSamples, outputWindowSamples,
                    outputWindowAge, minCacheSamples);
        }
    }
}
