package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** How much tokenizing a quote would take, so that a caller can decide where to quote. */
class CharsToCountTest {

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());
    private static final EstimatorProfile O200K = new EstimatorProfile("p", Tokenizer.O200K_BASE, false, 256);

    private static PromptShape prompt(String system, String user) {
        return new PromptShape(List.of(new MessagePart("system", Optional.empty(), system),
                new MessagePart("user", Optional.of("bob"), user)), List.of("{\"tool\":\"t\"}"), 0, 0, OptionalInt.empty());
    }

    @Test
    void textsRolesNamesAndToolsCountUntilTheirCountsAreRemembered() {
        String system = "You are a careful assistant who answers in one short paragraph.";
        String user = "What is the weather like in Lisbon this week?";
        PromptShape first = prompt(system, user);
        long all = 6 + system.length() + 4 + 3 + user.length() + "{\"tool\":\"t\"}".length();
        assertThat(estimator.charsToCount(O200K, first)).isLessThanOrEqualTo(all).isGreaterThanOrEqualTo(
                system.length() + user.length());

        estimator.estimate(O200K, "route", first);

        // The same system prompt with a new question: only the question is left to count.
        String next = "And in Porto, next weekend?";
        assertThat(estimator.charsToCount(O200K, prompt(system, next))).isEqualTo(next.length());
    }

    @Test
    void aPromptsTextCharactersAreItsRolesNamesTextsAndTools() {
        PromptShape p = new PromptShape(List.of(new MessagePart("user", Optional.of("bob"), "hello")),
                List.of("{\"x\":1}"), 0, 0, OptionalInt.empty());
        assertThat(p.textChars()).isEqualTo(4 + 3 + 5 + 7);
    }

    @Test
    void theCharacterHeuristicCostsNothingToSpeakOf() {
        EstimatorProfile calibrated = new EstimatorProfile("c", Tokenizer.CALIBRATED, false, 256);
        assertThat(estimator.charsToCount(calibrated, prompt("x".repeat(50_000), "y"))).isZero();
    }
}
