package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProviderErrorsTest {

    @Test
    void credentialsIdsAndHostsAreRedactedAndOrdinaryWordsKept() {
        assertThat(ProviderErrors.scrub("Incorrect API key provided: sk-proj-****abcd."))
                .isEqualTo("Incorrect API key provided: [redacted].");
        assertThat(ProviderErrors.scrub("key sk-ant-api03-AAAA for org-Abc123Def456 via Bearer xyz"))
                .isEqualTo("key [redacted] for [redacted] via [redacted]");
        assertThat(ProviderErrors.scrub("reached 10.0.0.7:8443 and api.internal.corp, see http://x/y?k=1"))
                .isEqualTo("reached [redacted] and [redacted], see [redacted]");
        assertThat(ProviderErrors.scrub("request id 9f8e7d6c5b4a39281706f5e4d3c2b1a0ff")).isEqualTo("request id [redacted]");
        assertThat(ProviderErrors.scrub("max_tokens is too large: 9000000 > 128000 for gpt-4.1-mini; "
                + "context_length_exceeded_for_the_model")).isEqualTo("max_tokens is too large: 9000000 > 128000 for "
                + "gpt-4.1-mini; context_length_exceeded_for_the_model");
    }

    @Test
    void anAnthropicErrorKeepsItsOwnShapeWithOnlyTypeAndMessage() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad at "
                + "10.1.1.1\",\"extra\":\"x\"},\"request_id\":\"req_1\"}";
        assertThat(Json.write(ProviderErrors.scrubbed(WireFormat.ANTHROPIC, body.getBytes(StandardCharsets.UTF_8), 400)))
                .isEqualTo("{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad at [redacted]\"}}");
    }

    @Test
    void aGeminiErrorKeepsCodeMessageAndStatusAndDropsItsDetails() {
        String body = "{\"error\":{\"code\":400,\"message\":\"API key not valid\",\"status\":\"INVALID_ARGUMENT\","
                + "\"details\":[{\"metadata\":{\"service\":\"generativelanguage.googleapis.com\"}}]}}";
        assertThat(Json.write(ProviderErrors.scrubbed(WireFormat.GEMINI, body.getBytes(StandardCharsets.UTF_8), 400)))
                .isEqualTo("{\"error\":{\"code\":400,\"message\":\"API key not valid\",\"status\":\"INVALID_ARGUMENT\"}}");
    }
}
