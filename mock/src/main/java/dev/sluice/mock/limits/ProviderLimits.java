package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits of one provider account (organisation, project or deployment), as the mock enforces
 * them. Every limit is optional: {@code 0} or {@code Long.MAX_VALUE} ({@code Integer.MAX_VALUE} for
 * concurrency) means unlimited.
 *
 * <p>Token limits are per minute and refill continuously; a bucket holds at most one minute's
 * worth. Requests are counted in fixed sub-windows of about {@code requestWindow}: each window
 * admits {@code max(1, round(rpm x requestWindow / 60 s))} requests, and its length is adjusted so
 * that this is exactly {@code rpm} per minute (Azure checks 10 s windows, OpenAI may quantise to
 * 1 s; 50 RPM on 1 s windows becomes one request per 1.2 s).
 *
 * @param rpm requests per minute
 * @param inputTpm input tokens per minute
 * @param outputTpm output tokens per minute
 * @param tpm input plus output tokens per minute
 * @param maxConcurrency requests in flight at once
 * @param rpd requests per day
 * @param requestWindow the sub-window over which {@code rpm} is enforced; 1 ms to 60 s
 * @param outputAccounting whether {@code max_tokens} is reserved up front
 * @param cacheReadCountsAgainstInputTpm whether cache-read input tokens are charged to input and
 *     total tokens (true for OpenAI-style and older Anthropic models, false for current Anthropic)
 * @param acceleration the ramp rule; {@link AccelerationRule#off()} for none
 */
public record ProviderLimits(
        long rpm,
        long inputTpm,
        long outputTpm,
        long tpm,
        int maxConcurrency,
        long rpd,
        Duration requestWindow,
        OutputAccounting outputAccounting,
        boolean cacheReadCountsAgainstInputTpm,
        AccelerationRule acceleration) {

    /** Default request window: 10 s, as Azure OpenAI enforces RPM. */
    public static final Duration DEFAULT_REQUEST_WINDOW = Duration.ofSeconds(10);

    /** The shortest request window accepted. */
    public static final Duration MIN_REQUEST_WINDOW = Duration.ofMillis(1);

    /** The longest request window accepted: one minute. */
    public static final Duration MAX_REQUEST_WINDOW = Duration.ofMinutes(1);

    /** No limit at all. */
    public static final ProviderLimits UNLIMITED = builder().build();

    public ProviderLimits {
        requireNonNegative("rpm", rpm);
        requireNonNegative("inputTpm", inputTpm);
        requireNonNegative("outputTpm", outputTpm);
        requireNonNegative("tpm", tpm);
        requireNonNegative("maxConcurrency", maxConcurrency);
        requireNonNegative("rpd", rpd);
        Objects.requireNonNull(requestWindow, "requestWindow");
        if (requestWindow.compareTo(MIN_REQUEST_WINDOW) < 0 || requestWindow.compareTo(MAX_REQUEST_WINDOW) > 0) {
            throw new IllegalArgumentException(
                    "requestWindow: " + requestWindow + " (expected: between 1ms and 60s)");
        }
        Objects.requireNonNull(outputAccounting, "outputAccounting");
        Objects.requireNonNull(acceleration, "acceleration");
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
        }
    }

    /** Whether a configured value is an actual limit (neither 0 nor the maximum of its type). */
    public static boolean isLimited(long value) {
        return value > 0 && value != Long.MAX_VALUE && value != Integer.MAX_VALUE;
    }

    /**
     * OpenAI-style: one total-token limit, {@code max_tokens} reserved, RPM quantised per second,
     * cached prompt tokens charged like any other.
     */
    public static ProviderLimits openAi(long rpm, long tpm) {
        return builder().rpm(rpm).tpm(tpm).requestWindow(Duration.ofSeconds(1)).build();
    }

    /**
     * Azure OpenAI-style: a TPM quota with RPM derived at 6 per 1,000 TPM, enforced per 10 s window;
     * the admission estimate includes {@code max_tokens}.
     */
    public static ProviderLimits azure(long tpm) {
        return builder().tpm(tpm).rpm(tpm * 6 / 1000).requestWindow(DEFAULT_REQUEST_WINDOW).build();
    }

    /**
     * Anthropic-style (2026): RPM, ITPM and OTPM as continuous buckets, cache reads not charged to
     * ITPM, output counted from tokens actually produced.
     */
    public static ProviderLimits anthropic(long rpm, long inputTpm, long outputTpm) {
        return builder()
                .rpm(rpm)
                .inputTpm(inputTpm)
                .outputTpm(outputTpm)
                .requestWindow(Duration.ofSeconds(1))
                .outputAccounting(OutputAccounting.ACTUAL_ONLY)
                .cacheReadCountsAgainstInputTpm(false)
                .build();
    }

    /** Gemini-style: RPM per minute window, input TPM, RPD; output not limited. */
    public static ProviderLimits gemini(long rpm, long inputTpm, long rpd) {
        return builder()
                .rpm(rpm)
                .inputTpm(inputTpm)
                .rpd(rpd)
                .requestWindow(MAX_REQUEST_WINDOW)
                .outputAccounting(OutputAccounting.ACTUAL_ONLY)
                .build();
    }

    /** A builder with every limit off, a 10 s request window and {@code max_tokens} reserved. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        return new Builder()
                .rpm(rpm)
                .inputTpm(inputTpm)
                .outputTpm(outputTpm)
                .tpm(tpm)
                .maxConcurrency(maxConcurrency)
                .rpd(rpd)
                .requestWindow(requestWindow)
                .outputAccounting(outputAccounting)
                .cacheReadCountsAgainstInputTpm(cacheReadCountsAgainstInputTpm)
                .acceleration(acceleration);
    }

    /** Builds {@link ProviderLimits}; unset limits are unlimited. */
    public static final class Builder {
        private long rpm;
        private long inputTpm;
        private long outputTpm;
        private long tpm;
        private int maxConcurrency;
        private long rpd;
        private Duration requestWindow = DEFAULT_REQUEST_WINDOW;
        private OutputAccounting outputAccounting = OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT;
        private boolean cacheReadCountsAgainstInputTpm = true;
        private AccelerationRule acceleration = AccelerationRule.off();

        private Builder() {}

        public Builder rpm(long value) {
            this.rpm = value;
            return this;
        }

        public Builder inputTpm(long value) {
            this.inputTpm = value;
            return this;
        }

        public Builder outputTpm(long value) {
            this.outputTpm = value;
            return this;
        }

        public Builder tpm(long value) {
            this.tpm = value;
            return this;
        }

        public Builder maxConcurrency(int value) {
            this.maxConcurrency = value;
            return this;
        }

        public Builder rpd(long value) {
            this.rpd = value;
            return this;
        }

        public Builder requestWindow(Duration value) {
            this.requestWindow = value;
            return this;
        }

        public Builder outputAccounting(OutputAccounting value) {
            this.outputAccounting = value;
            return this;
        }

        public Builder cacheReadCountsAgainstInputTpm(boolean value) {
            this.cacheReadCountsAgainstInputTpm = value;
            return this;
        }

        public Builder acceleration(AccelerationRule value) {
            this.acceleration = value;
            return this;
        }

        public ProviderLimits build() {
            return new ProviderLimits(rpm, inputTpm, outputTpm, tpm, maxConcurrency, rpd, requestWindow,
                    outputAccounting, cacheReadCountsAgainstInputTpm, acceleration);
        }
    }
}
