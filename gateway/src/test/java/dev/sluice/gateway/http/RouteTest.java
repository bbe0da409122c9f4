package dev.sluice.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.http.HttpMethod;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RouteTest {

    @Test
    void openAiAndAnthropicRoutesCarryTheModelInTheBody() {
        assertThat(Route.match(HttpMethod.POST, "/v1/chat/completions"))
                .contains(new Route(Operation.OPENAI_CHAT, Optional.empty()));
        assertThat(Route.match(HttpMethod.POST, "/v1/messages/count_tokens").orElseThrow().operation())
                .isEqualTo(Operation.ANTHROPIC_COUNT_TOKENS);
        assertThat(Route.match(HttpMethod.GET, "/v1/models").orElseThrow().operation()).isEqualTo(Operation.OPENAI_MODELS);
    }

    @Test
    void geminiRoutesCarryTheModelInThePath() {
        Route r = Route.match(HttpMethod.POST, "/v1beta/models/gemini-fast:streamGenerateContent").orElseThrow();
        assertThat(r.operation()).isEqualTo(Operation.GEMINI_STREAM_GENERATE);
        assertThat(r.pathModel()).contains("gemini-fast");
    }

    @Test
    void unknownPathsAndMethodsDoNotMatch() {
        assertThat(Route.match(HttpMethod.GET, "/v1/chat/completions")).isEmpty();
        assertThat(Route.match(HttpMethod.POST, "/v1beta/models/x:explode")).isEmpty();
        assertThat(Route.match(HttpMethod.POST, "/admin")).isEmpty();
    }

    @Test
    void unmatchedPathsGetTheErrorShapeOfTheirPrefix() {
        assertThat(Route.familyOf("/v1beta/anything")).isEqualTo(ApiFamily.GEMINI);
        assertThat(Route.familyOf("/v1/messages/x")).isEqualTo(ApiFamily.ANTHROPIC);
        assertThat(Route.familyOf("/v2/x")).isEqualTo(ApiFamily.OPENAI);
    }

    @Test
    void onlyTheCallersOwnMeteredRoutesPassAdmission() {
        assertThat(Operation.OPENAI_CHAT.metered()).isTrue();
        assertThat(Operation.OPENAI_MODELS.metered()).isFalse();
        assertThat(Operation.HEALTH.open()).isTrue();
    }
}
