package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProviderErrorsTest {

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("anthropic", WireFormat.ANTHROPIC, 429,
                        "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\",\"details\":null},"
                                + "\"request_id\":\"req_1\"}",
                        "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\",\"param\":null,\"code\":\"rate_limit_error\"}}"),
                Arguments.of("gemini", WireFormat.GEMINI, 429,
                        "{\"error\":{\"code\":429,\"message\":\"quota\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[]}}",
                        "{\"error\":{\"message\":\"quota\",\"type\":\"RESOURCE_EXHAUSTED\",\"param\":null,\"code\":\"RESOURCE_EXHAUSTED\"}}"),
                Arguments.of("gemini wrapped in an array", WireFormat.GEMINI, 429,
                        "[{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}}]",
                        "{\"error\":{\"message\":\"Resource has been exhausted\",\"type\":\"RESOURCE_EXHAUSTED\",\"param\":null,"
                                + "\"code\":\"RESOURCE_EXHAUSTED\"}}"),
                Arguments.of("openai kept as is", WireFormat.OPENAI, 429,
                        "{\"error\":{\"message\":\"m\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}",
                        "{\"error\":{\"message\":\"m\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}"),
                Arguments.of("anthropic without message", WireFormat.ANTHROPIC, 500, "{\"error\":{\"type\":\"api_error\"}}",
                        "{\"error\":{\"message\":\"upstream error without a message\",\"type\":\"api_error\",\"param\":null,"
                                + "\"code\":\"api_error\"}}"),
                Arguments.of("garbage", WireFormat.ANTHROPIC, 502, "<html>502</html>",
                        "{\"error\":{\"message\":\"upstream returned HTTP 502 without a readable error body\","
                                + "\"type\":\"upstream_error\",\"param\":null,\"code\":\"upstream_error\"}}"),
                Arguments.of("json without error", WireFormat.GEMINI, 500, "{\"candidates\":[]}",
                        "{\"error\":{\"message\":\"upstream returned HTTP 500 without a readable error body\","
                                + "\"type\":\"upstream_error\",\"param\":null,\"code\":\"upstream_error\"}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void translatesToTheOpenAiErrorShape(String description, WireFormat format, int status, String body, String expected) {
        assertThat(ProviderErrors.toOpenAi(format, body.getBytes(StandardCharsets.UTF_8), status)).isEqualTo(Fixtures.parse(expected));
    }
}
