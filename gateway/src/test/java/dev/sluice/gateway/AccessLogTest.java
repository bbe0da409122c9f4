package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every request leaves one JSON line in the access log, with who and what but no secret, prompt or answer. */
class AccessLogTest {

    static final Path LOG = temp();

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true, ", access_log: \"" + LOG + "\"");

    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String PROMPT = "a prompt that must never be logged";

    private static Path temp() {
        try {
            Path p = Files.createTempFile("sluice-access", ".log");
            p.toFile().deleteOnExit();
            return p;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> linesWith(String text) {
        try {
            return Files.readAllLines(LOG).stream().filter(l -> l.contains(text)).toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** The log's lines holding {@code text}, once there is one (the writer is a thread of its own). */
    private static List<String> awaitLines(String text) throws Exception {
        f.awaitCondition(() -> !linesWith(text).isEmpty(), () -> "no access log line for " + text);
        return linesWith(text);
    }

    @Test
    void anAnsweredRequestIsOneLineNamingWhoWhatWhereAndHowLongWithoutTheKeyThePromptOrTheAnswer() throws Exception {
        var r = f.post("/v1/chat/completions", GatewayFixture.KEY, "{\"model\":\"chat\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + PROMPT + "\"}]}", "traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01");
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> lines = awaitLines(TRACE);
        assertThat(lines).hasSize(1);
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertThat(line.path("trace_id").asText()).isEqualTo(TRACE);
        assertThat(line.path("tenant").asText()).isEqualTo("acme");
        assertThat(line.path("key_id").asText()).isEqualTo("main");
        assertThat(line.path("class").asText()).isEqualTo("interactive");
        assertThat(line.path("profile").asText()).isEqualTo("chat");
        assertThat(line.path("deployment").asText()).isEqualTo("oa");
        assertThat(line.path("decision").asText()).isEqualTo("admitted");
        assertThat(line.path("status").asInt()).isEqualTo(200);
        assertThat(line.path("latency_ms").isNumber()).isTrue();
        String body = f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", "")).body();
        String answerText = new ObjectMapper().readTree(body).path("choices").path(0).path("message").path("content").asText();
        for (String forbidden : List.of(GatewayFixture.KEY, PROMPT, answerText)) {
            assertThat(Files.readString(LOG)).doesNotContain(forbidden);
        }
    }

    @Test
    void aRefusedRequestIsLoggedWithItsCodeAndStatus() throws Exception {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        f.post("/v1/chat/completions", "sk-not-a-key", ErrorsTest.chat("chat", ""), "traceparent",
                "00-" + trace + "-b7ad6b7169203331-01");
        JsonNode line = new ObjectMapper().readTree(awaitLines(trace).get(0));
        assertThat(line.path("status").asInt()).isEqualTo(401);
        assertThat(line.path("code").asText()).isEqualTo("invalid_api_key");
        assertThat(line.path("decision").asText()).isEqualTo("none");
        assertThat(line.has("tenant")).isFalse();
        assertThat(Files.readString(LOG)).doesNotContain("sk-not-a-key");
    }
}
