package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TokenizerChoiceTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "gpt-4o, O200K_BASE",
        "gpt-4o-mini-2024-07-18, O200K_BASE",
        "GPT-4O, O200K_BASE",
        "gpt-4.1-nano, O200K_BASE",
        "o1-preview, O200K_BASE",
        "o3-mini, O200K_BASE",
        "o4-mini, O200K_BASE",
        "gpt-5, O200K_BASE",
        "openai/gpt-5-mini, O200K_BASE",
        "ft:gpt-4o-mini:acme::abc123, O200K_BASE",
        "gpt-4, CL100K_BASE",
        "gpt-4-turbo, CL100K_BASE",
        "gpt-4-0613, CL100K_BASE",
        "gpt-3.5-turbo, CL100K_BASE",
        "claude-sonnet-4-5, CALIBRATED",
        "gemini-2.5-pro, CALIBRATED",
        "my-azure-deployment, CALIBRATED",
        "llama-3.1-70b, CALIBRATED",
    })
    void suggestsTokenizerFromModelName(String model, Tokenizer expected) {
        assertThat(TokenizerChoice.defaultFor(model)).isEqualTo(expected);
    }

    @Test
    void configNamesRoundTrip() {
        for (Tokenizer t : Tokenizer.values()) {
            assertThat(Tokenizer.fromConfigName(t.configName())).isEqualTo(t);
        }
        assertThat(Tokenizer.O200K_BASE.configName()).isEqualTo("o200k_base");
        assertThat(Tokenizer.CL100K_BASE.configName()).isEqualTo("cl100k_base");
        assertThat(Tokenizer.CALIBRATED.configName()).isEqualTo("calibrated");
    }

    @Test
    void unknownConfigNameListsTheAcceptedValues() {
        assertThatThrownBy(() -> Tokenizer.fromConfigName("p50k_base"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tokenizer: p50k_base (expected one of: o200k_base, cl100k_base, calibrated)");
    }
}
