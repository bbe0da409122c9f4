package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Raw counts pinned from jtokkit 1.1.0; a change here means the vocabularies changed. */
class TokenCountTest {

    private final TokenEstimator estimator = new TokenEstimator(EstimatorConfig.defaults(), new FakeClock());

    @ParameterizedTest(name = "\"{0}\": o200k {1}, cl100k {2}, calibrated {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "''                                                     | 0  | 0  | 0",
        "Hello, world!                                          | 4  | 4  | 4",
        "The quick brown fox jumps over the lazy dog.           | 10 | 10 | 11",
        "Rate limits are enforced per organisation, per model, and per minute. | 14 | 14 | 18",
        "for (int i = 0; i < n; i++) { sum += a[i]; }           | 21 | 21 | 11",
        "Grüße aus München! Ça va très bien.                    | 11 | 12 | 13",
        "Привет, мир!                                           | 5  | 7  | 10",
        "日本語のテキストです。                                  | 8  | 10 | 11",
    })
    void countsTextPerTokenizer(String text, long o200k, long cl100k, long calibrated) {
        assertThat(estimator.countTokens(Tokenizer.O200K_BASE, text)).isEqualTo(o200k);
        assertThat(estimator.countTokens(Tokenizer.CL100K_BASE, text)).isEqualTo(cl100k);
        assertThat(estimator.countTokens(Tokenizer.CALIBRATED, text)).isEqualTo(calibrated);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"O200K_BASE, 7", "CL100K_BASE, 7"})
    void specialTokenTextInAPromptIsCountedAsOrdinaryText(Tokenizer tokenizer, long expected) {
        assertThat(estimator.countTokens(tokenizer, "<|endoftext|>")).isEqualTo(expected);
    }

    @Test
    void aLoneSurrogateFromABrokenClientIsCountedNotRejected() {
        // Counted as U+FFFD; jtokkit would fail its UTF-8 assertion on the raw string.
        String broken = "\uD800abc";
        assertThat(estimator.countTokens(Tokenizer.O200K_BASE, broken)).isEqualTo(2);
        assertThat(estimator.countTokens(Tokenizer.CL100K_BASE, broken)).isEqualTo(2);
        assertThat(estimator.countTokens(Tokenizer.CALIBRATED, broken)).isEqualTo(2);
    }
}
