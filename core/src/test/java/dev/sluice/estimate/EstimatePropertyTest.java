package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

class EstimatePropertyTest {

    private final FakeClock clock = new FakeClock();

    @Property(tries = 300)
    void estimatesAreNeverNegativeAndOutputNeverExceedsItsCeiling(
            @ForAll Tokenizer tokenizer,
            @ForAll boolean cacheReadCounts,
            @ForAll @LongRange(min = 1, max = 100_000) long defaultMaxOutput,
            @ForAll @Size(max = 5) List<@StringLength(max = 200) String> texts,
            @ForAll @Size(max = 3) List<@StringLength(max = 100) String> tools,
            @ForAll @IntRange(max = 5) int lowImages,
            @ForAll @IntRange(max = 5) int highImages,
            @ForAll("maxTokens") OptionalInt maxTokens,
            @ForAll @Size(max = 40) List<@From("settled") ActualTokens> history) {
        var estimator = new TokenEstimator(EstimatorConfig.defaults(), clock);
        var profile = new EstimatorProfile("p", tokenizer, cacheReadCounts, defaultMaxOutput);
        List<MessagePart> messages = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            messages.add(new MessagePart(i % 2 == 0 ? "user" : "assistant",
                    i == 0 ? Optional.of("n") : Optional.empty(), texts.get(i)));
        }
        var prompt = new PromptShape(messages, tools, lowImages, highImages, maxTokens);

        for (ActualTokens actual : history) {
            estimator.learn(profile, "route", estimator.estimate(profile, "route", prompt), actual);
        }
        TokenEstimate estimate = estimator.estimate(profile, "route", prompt);

        assertThat(estimate.inputTokens()).isNotNegative();
        assertThat(estimate.outputTokens()).isNotNegative();
        assertThat(estimate.expectedCacheReadTokens()).isNotNegative();
        assertThat(estimate.inputTokens()).isLessThanOrEqualTo(estimate.promptTokens());
        assertThat(estimate.outputTokens()).isLessThanOrEqualTo(maxTokens.isPresent() ? maxTokens.getAsInt() : defaultMaxOutput);
        if (cacheReadCounts) {
            assertThat(estimate.inputTokens()).isEqualTo(estimate.promptTokens());
        }
        // The learned ratio stays within [0.25, 4] of the base count.
        assertThat(estimate.promptTokens()).isBetween(estimate.baseTokens() / 4, estimate.baseTokens() * 4);
    }

    @Provide
    Arbitrary<OptionalInt> maxTokens() {
        return Arbitraries.integers().between(0, 200_000).map(OptionalInt::of)
                .injectNull(0.3).map(o -> o == null ? OptionalInt.empty() : o);
    }

    @Provide
    Arbitrary<ActualTokens> settled() {
        return Combinators.combine(
                        Arbitraries.longs().between(0, 2_000_000),
                        Arbitraries.longs().between(0, 5_000_000),
                        Arbitraries.doubles().between(0.0, 1.0))
                .as((input, output, cachedShare) -> new ActualTokens(input, output, (long) (input * cachedShare)));
    }
}
