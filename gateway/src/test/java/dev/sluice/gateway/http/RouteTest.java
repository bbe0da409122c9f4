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
    void azureDeploymentPathsAreTheOpenAiOperationsWithTheDeploymentAsTheModel() {
        assertThat(Route.match(HttpMethod.POST, "/openai/deployments/chat/chat/completions"))
                .contains(new Route(Operation.OPENAI_CHAT, Optional.of("chat"), true));
        assertThat(Route.match(HttpMethod.POST, "/openai/deployments/my%20gpt/completions"))
                .contains(new Route(Operation.OPENAI_COMPLETIONS, Optional.of("my gpt"), true));
        assertThat(Route.match(HttpMethod.POST, "/openai/deployments/embed/embeddings"))
                .contains(new Route(Operation.OPENAI_EMBEDDINGS, Optional.of("embed"), true));
        assertThat(Route.match(HttpMethod.POST, "/openai/deployments/chat/images/generations")).isEmpty();
        assertThat(Route.match(HttpMethod.POST, "/openai/deployments//chat/completions")).isEmpty();
        assertThat(Route.match(HttpMethod.GET, "/openai/deployments/chat/chat/completions")).isEmpty();
    }

    @Test
    void anAzurePathNeedsOneWellFormedApiVersion() {
        assertThat(Route.azureApiVersionProblem("api-version=2024-10-21")).isEmpty();
        assertThat(Route.azureApiVersionProblem("x=1&api-version=2025-04-01-preview")).isEmpty();
        assertThat(Route.azureApiVersionProblem(null).orElseThrow()).contains("no 'api-version'");
        assertThat(Route.azureApiVersionProblem("api-version=").orElseThrow()).contains("no 'api-version'");
        assertThat(Route.azureApiVersionProblem("api-version=2024-10-21&api-version=2024-06-01").orElseThrow())
                .contains("2 'api-version'");
        assertThat(Route.azureApiVersionProblem("api-version=2024-13-01").orElseThrow())
                .contains("'2024-13-01' is not an API version");
        assertThat(Route.azureApiVersionProblem("api-version=latest%zz").orElseThrow()).contains("is not an API version");
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
    void theAnthropicMessagesPathIsTakenWithOrWithoutV1() {
        for (String path : new String[] {"/v1/messages", "/messages", "/v1/v1/messages"}) {
            assertThat(Route.match(HttpMethod.POST, path).orElseThrow().operation()).isEqualTo(Operation.ANTHROPIC_MESSAGES);
        }
        assertThat(Route.match(HttpMethod.POST, "/messages/count_tokens").orElseThrow().operation())
                .isEqualTo(Operation.ANTHROPIC_COUNT_TOKENS);
    }

    @Test
    void geminiIsServedUnderV1AsUnderV1beta() {
        for (String version : new String[] {"v1", "v1beta"}) {
            assertThat(Route.match(HttpMethod.POST, "/" + version + "/models/g:embedContent").orElseThrow())
                    .isEqualTo(new Route(Operation.GEMINI_EMBED, Optional.of("g")));
            assertThat(Route.match(HttpMethod.POST, "/" + version + "/models/g:batchEmbedContents").orElseThrow().operation())
                    .isEqualTo(Operation.GEMINI_BATCH_EMBED);
            assertThat(Route.match(HttpMethod.GET, "/" + version + "/models/g", ApiFamily.GEMINI).orElseThrow())
                    .isEqualTo(new Route(Operation.GEMINI_MODEL, Optional.of("g")));
        }
        assertThat(Route.match(HttpMethod.GET, "/v1beta/models", ApiFamily.OPENAI).orElseThrow().operation())
                .isEqualTo(Operation.GEMINI_MODELS);
    }

    @Test
    void aSharedPathIsTheRouteOfTheDialectItIsAskedIn() {
        assertThat(Route.match(HttpMethod.GET, "/v1/models", ApiFamily.ANTHROPIC).orElseThrow().operation())
                .isEqualTo(Operation.ANTHROPIC_MODELS);
        assertThat(Route.match(HttpMethod.GET, "/v1/models", ApiFamily.GEMINI).orElseThrow().operation())
                .isEqualTo(Operation.GEMINI_MODELS);
        assertThat(Route.match(HttpMethod.GET, "/v1/models/claude", ApiFamily.OPENAI).orElseThrow())
                .isEqualTo(new Route(Operation.OPENAI_MODEL, Optional.of("claude")));
    }

    @Test
    void theDialectIsReadFromWhatEachSdkAlwaysSends() {
        io.vertx.core.MultiMap none = io.vertx.core.MultiMap.caseInsensitiveMultiMap();
        assertThat(Route.dialect("/v2/x", none, null)).isEqualTo(ApiFamily.OPENAI);
        assertThat(Route.dialect("/v2/x", io.vertx.core.MultiMap.caseInsensitiveMultiMap().add("anthropic-version", "1"), null))
                .isEqualTo(ApiFamily.ANTHROPIC);
        assertThat(Route.dialect("/v2/x", io.vertx.core.MultiMap.caseInsensitiveMultiMap().add("x-api-key", "k"), null))
                .isEqualTo(ApiFamily.ANTHROPIC);
        assertThat(Route.dialect("/v2/x", io.vertx.core.MultiMap.caseInsensitiveMultiMap().add("x-goog-api-key", "k"), null))
                .isEqualTo(ApiFamily.GEMINI);
        assertThat(Route.dialect("/v2/x", none, "alt=sse&key=k")).isEqualTo(ApiFamily.GEMINI);
        assertThat(Route.dialect("/v2/x", none, "monkey=1")).isEqualTo(ApiFamily.OPENAI);
        assertThat(Route.dialect("/v1beta/x", io.vertx.core.MultiMap.caseInsensitiveMultiMap().add("x-api-key", "k"), null))
                .isEqualTo(ApiFamily.GEMINI);
    }

    @Test
    void onlyTheCallersOwnMeteredRoutesPassAdmission() {
        assertThat(Operation.OPENAI_CHAT.metered()).isTrue();
        assertThat(Operation.OPENAI_MODELS.metered()).isFalse();
        assertThat(Operation.HEALTH.open()).isTrue();
        for (Operation op : Operation.values()) {
            assertThat(op.metered()).as(op.name()).isEqualTo(!op.catalogue() && !op.open()
                    && op != Operation.ANTHROPIC_COUNT_TOKENS && op != Operation.GEMINI_COUNT_TOKENS);
        }
        assertThat(Operation.GEMINI_MODELS.catalogue()).isTrue();
        assertThat(Operation.GEMINI_EMBED.metered()).isTrue();
    }
}
