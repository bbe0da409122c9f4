package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.estimate.OutputReservation;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which output a profile reserves follows how its provider charges output, unless configured. */
class OutputReservationConfigTest {

    private static ProfileConfig profile(String kind, String extra) {
        String azure = kind.equals("azure-openai") ? ", azure_deployment: chat, api_version: 2024-10-21" : "";
        String yaml = "deployments:\n  d: { kind: " + kind + ", base_url: \"http://127.0.0.1:1\"" + azure + " }\n"
                + "profiles:\n  p: { deployment: d, model: m" + extra + " }\n";
        return ConfigLoader.parse(yaml, "t.yaml", Map.<String, String>of()::get).profile("p").orElseThrow();
    }

    @Test
    void openAiAndAzureReserveTheWholeMaxTokensBecauseTheyChargeItOnArrival() {
        assertThat(profile("openai", "").outputReservation()).isEqualTo(OutputReservation.MAX_TOKENS);
        assertThat(profile("azure-openai", ", output_reservation: max_tokens").outputReservation())
                .isEqualTo(OutputReservation.MAX_TOKENS);
        assertThat(profile("openai", "").estimatorProfile().outputReservation()).isEqualTo(OutputReservation.MAX_TOKENS);
    }

    @Test
    void anthropicAndGeminiReserveTheLearnedOutput() {
        assertThat(profile("anthropic", "").outputReservation()).isEqualTo(OutputReservation.LEARNED);
        assertThat(profile("gemini", "").outputReservation()).isEqualTo(OutputReservation.LEARNED);
    }

    @Test
    void theDefaultCanBeOverriddenAndABadValueIsNamed() {
        assertThat(profile("openai", ", output_reservation: learned").outputReservation())
                .isEqualTo(OutputReservation.LEARNED);
        assertThatThrownBy(() -> profile("openai", ", output_reservation: some"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("profiles.p.output_reservation")
                .hasMessageContaining("learned or max_tokens");
    }
}
