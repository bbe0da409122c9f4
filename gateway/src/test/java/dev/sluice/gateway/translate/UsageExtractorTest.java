package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Non-streaming usage for every provider body, normalised so input excludes cache reads. */
class UsageExtractorTest {

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("openai chat with cached prompt", WireFormat.OPENAI,
                        "{\"usage\":{\"prompt_tokens\":1200,\"completion_tokens\":80,\"total_tokens\":1280,"
                                + "\"prompt_tokens_details\":{\"cached_tokens\":1024},\"completion_tokens_details\":{\"reasoning_tokens\":30}}}",
                        Optional.of(new ObservedUsage(176, 80, 1024, 0, true))),
                Arguments.of("openai cache writes stay in input", WireFormat.OPENAI,
                        "{\"usage\":{\"prompt_tokens\":500,\"completion_tokens\":5,\"prompt_tokens_details\":"
                                + "{\"cached_tokens\":100,\"cache_write_tokens\":300}}}",
                        Optional.of(new ObservedUsage(400, 5, 100, 300, true))),
                Arguments.of("openai embeddings", WireFormat.OPENAI,
                        "{\"object\":\"list\",\"usage\":{\"prompt_tokens\":8,\"total_tokens\":8}}",
                        Optional.of(new ObservedUsage(8, 0, 0, 0, true))),
                Arguments.of("openai responses api", WireFormat.OPENAI,
                        "{\"object\":\"response\",\"usage\":{\"input_tokens\":300,\"input_tokens_details\":{\"cached_tokens\":200},"
                                + "\"output_tokens\":40,\"output_tokens_details\":{\"reasoning_tokens\":10},\"total_tokens\":340}}",
                        Optional.of(new ObservedUsage(100, 40, 200, 0, true))),
                Arguments.of("openai cached above prompt is capped", WireFormat.OPENAI,
                        "{\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":50}}}",
                        Optional.of(new ObservedUsage(0, 1, 10, 0, true))),
                Arguments.of("openai error body has no usage", WireFormat.OPENAI,
                        "{\"error\":{\"message\":\"no\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}", Optional.empty()),
                Arguments.of("anthropic with cache", WireFormat.ANTHROPIC,
                        "{\"type\":\"message\",\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":100,"
                                + "\"cache_read_input_tokens\":2000,\"output_tokens\":7,\"service_tier\":\"standard\"}}",
                        Optional.of(new ObservedUsage(112, 7, 2000, 100, true))),
                Arguments.of("anthropic null cache fields", WireFormat.ANTHROPIC,
                        "{\"usage\":{\"input_tokens\":5,\"cache_creation_input_tokens\":null,\"cache_read_input_tokens\":null,"
                                + "\"output_tokens\":3}}",
                        Optional.of(new ObservedUsage(5, 3, 0, 0, true))),
                Arguments.of("anthropic count_tokens has no usage", WireFormat.ANTHROPIC, "{\"input_tokens\":42}", Optional.empty()),
                Arguments.of("gemini with cache, thoughts and tool-use prompt", WireFormat.GEMINI,
                        "{\"usageMetadata\":{\"promptTokenCount\":1200,\"cachedContentTokenCount\":1000,\"candidatesTokenCount\":5,"
                                + "\"thoughtsTokenCount\":40,\"toolUsePromptTokenCount\":30,\"totalTokenCount\":1275}}",
                        Optional.of(new ObservedUsage(230, 45, 1000, 0, true))),
                Arguments.of("gemini array form: the last usage", WireFormat.GEMINI,
                        "[{\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":1}},{\"candidates\":[]},"
                                + "{\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":12}}]",
                        Optional.of(new ObservedUsage(9, 12, 0, 0, true))),
                Arguments.of("gemini countTokens has no usage", WireFormat.GEMINI, "{\"totalTokens\":31}", Optional.empty()),
                Arguments.of("negative counts read as zero", WireFormat.ANTHROPIC,
                        "{\"usage\":{\"input_tokens\":-5,\"output_tokens\":3}}", Optional.of(new ObservedUsage(0, 3, 0, 0, true))),
                Arguments.of("usage after a long answer, a nested usage key ignored", WireFormat.OPENAI,
                        "{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(5_000) + "\",\"usage\":{\"prompt_tokens\":1}}}],"
                                + "\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}",
                        Optional.of(new ObservedUsage(7, 2, 0, 0, true))),
                Arguments.of("a repeated usage key: the last one counts", WireFormat.OPENAI,
                        "{\"usage\":{\"prompt_tokens\":1},\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}",
                        Optional.of(new ObservedUsage(4, 1, 0, 0, true))),
                Arguments.of("usage that is not an object", WireFormat.OPENAI, "{\"usage\":12}", Optional.empty()),
                Arguments.of("a bare value", WireFormat.OPENAI, "\"usage\"", Optional.empty()),
                Arguments.of("not JSON", WireFormat.OPENAI, "<html>bad gateway</html>", Optional.empty()),
                Arguments.of("empty body", WireFormat.GEMINI, "", Optional.empty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void extractsUsage(String description, WireFormat format, String body, Optional<ObservedUsage> expected) {
        assertThat(UsageExtractor.extract(format, body.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    }

    /** The streaming scan of passed-through answers gives the tree's answers, and refuses what is not JSON. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void scanningAgreesWithTheTree(String description, WireFormat format, String body, Optional<ObservedUsage> expected) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (Json.parse(bytes).isEmpty()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> UsageExtractor.scan(format, bytes))
                    .isInstanceOf(UpstreamFormatException.class);
        } else {
            assertThat(UsageExtractor.scan(format, bytes)).isEqualTo(expected);
        }
    }

    @org.junit.jupiter.api.Test
    void aTruncatedAnswerIsNotJson() {
        byte[] truncated = "{\"choices\":[{\"message\":{\"content\":\"Hel".getBytes(StandardCharsets.UTF_8);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> UsageExtractor.scan(WireFormat.OPENAI, truncated))
                .isInstanceOf(UpstreamFormatException.class);
    }
}
