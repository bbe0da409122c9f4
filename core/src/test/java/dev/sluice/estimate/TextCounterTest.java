package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextCounterTest {

    @Test
    void wellFormedTextIsReturnedUncopied() {
        String text = "emoji \uD83D\uDE00 and text";
        assertThat(TextCounter.wellFormed(text)).isSameAs(text);
    }

    @Test
    void unpairedSurrogatesBecomeReplacementCharactersAndPairsSurvive() {
        assertThat(TextCounter.wellFormed("a\uD800")).isEqualTo("a\uFFFD");
        assertThat(TextCounter.wellFormed("\uDC00\uD83D\uDE00")).isEqualTo("\uFFFD\uD83D\uDE00");
        assertThat(TextCounter.wellFormed("\uD800\uD800\uDC00x")).isEqualTo("\uFFFD\uD800\uDC00x");
    }

    @Test
    void heuristicCountsFourAsciiCharactersOrOneOtherCodePointPerToken() {
        assertThat(TextCounter.heuristic("abcd")).isEqualTo(1);
        assertThat(TextCounter.heuristic("abcde")).isEqualTo(2);
        assertThat(TextCounter.heuristic("日本")).isEqualTo(2);
        assertThat(TextCounter.heuristic("\uD83D\uDE00")).isEqualTo(1);
    }
}
