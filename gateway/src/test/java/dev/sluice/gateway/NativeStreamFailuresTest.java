package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A provider stream that breaks, stalls, is cut short or carries garbage ends, on the native
 * Anthropic and Gemini routes too, with the route's own error event after what was relayed,
 * never a clean end or a bare reset; what was produced is settled.
 */
class NativeStreamFailuresTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(false);

    static final String ANTHROPIC_ERROR = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\"";

    private HttpResponse<String> anthropic(String profile) throws Exception {
        return f.post("/v1/messages", null, "{\"model\":\"" + profile + "\",\"max_tokens\":50,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "x-api-key", GatewayFixture.KEY,
                "anthropic-version", "2023-06-01");
    }

    private HttpResponse<String> gemini(String profile) throws Exception {
        return f.post("/v1beta/models/" + profile + ":streamGenerateContent?alt=sse", null,
                "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}", "x-goog-api-key", GatewayFixture.KEY);
    }

    @Test
    void anAnthropicStreamCutShortOfItsMessageStopEndsWithAnErrorEvent() throws Exception {
        HttpResponse<String> r = anthropic("fake-anthropic-truncated");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(FakeUpstream.PARTIAL_TEXT).endsWith("\n\n").contains(ANTHROPIC_ERROR);
        assertThat(r.body().indexOf(ANTHROPIC_ERROR)).isGreaterThan(r.body().indexOf(FakeUpstream.PARTIAL_TEXT));
    }

    @Test
    void anAnthropicStreamOfGarbageEndsWithAnErrorEvent() throws Exception {
        assertThat(anthropic("fake-anthropic-garbage").body()).contains(ANTHROPIC_ERROR);
    }

    @Test
    void anAnthropicStreamResetMidAnswerEndsWithAnErrorEventNotAReset() throws Exception {
        HttpResponse<String> r = anthropic("fake-anthropic-reset");
        assertThat(r.body()).contains(FakeUpstream.PARTIAL_TEXT, ANTHROPIC_ERROR, "broke the stream off");
    }

    @Test
    void anAnthropicStreamThatStallsEndsWithAnErrorEventAfterTheUpstreamTimeout() throws Exception {
        HttpResponse<String> r = anthropic("fake-anthropic-stall");
        assertThat(r.body()).contains(FakeUpstream.PARTIAL_TEXT, ANTHROPIC_ERROR, "stopped sending");
    }

    @Test
    void aGeminiStreamWithoutAFinishReasonEndsWithAnErrorObject() throws Exception {
        HttpResponse<String> r = gemini("fake-gemini-truncated");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(FakeUpstream.PARTIAL_TEXT)
                .contains("data: {\"error\":{\"code\":502,").contains("\"status\":\"UNAVAILABLE\"");
    }

    @Test
    void aGeminiStreamResetMidAnswerEndsWithAnErrorObject() throws Exception {
        assertThat(gemini("fake-gemini-reset").body()).contains(FakeUpstream.PARTIAL_TEXT, "data: {\"error\":{\"code\":502,");
    }

    @Test
    void whatABrokenStreamProducedIsSettledNotReleased() throws Exception {
        long settled = f.gateway.counters().reservationsSettled();
        long released = f.gateway.counters().reservationsReleased();
        anthropic("fake-anthropic-reset");
        f.awaitBalanced();
        assertThat(f.gateway.counters().reservationsSettled()).isEqualTo(settled + 1);
        assertThat(f.gateway.counters().reservationsReleased()).isEqualTo(released);
    }
}
