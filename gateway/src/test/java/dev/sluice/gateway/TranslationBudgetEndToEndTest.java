package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whole answers read to be translated (an OpenAI route on an Anthropic deployment) are held within
 * {@code server.translation_budget_bytes} over the process: an answer that finds no room waits, its
 * provider paused, until another gives its room back, and past {@code server.translation_wait} it
 * is answered 503 {@code translation_budget_exhausted}. Here the budget holds two answers of
 * 150,000 bytes, each reserved whole from its {@code content-length} before its body is read.
 */
class TranslationBudgetEndToEndTest {

    private static final Vertx VERTX = Vertx.vertx();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final int ANSWER_BYTES = 150_000;
    private static final byte[] ANSWER = answer();
    /** The held answers' second halves, written when a test lets them go. */
    private static final List<Runnable> HELD = new CopyOnWriteArrayList<>();
    private static Gateway patient;
    private static Gateway hasty;

    private static byte[] answer() {
        String head = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"";
        String tail = "\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":9,"
                + "\"output_tokens\":70}}";
        return (head + "x".repeat(ANSWER_BYTES - head.length() - tail.length()) + tail).getBytes(StandardCharsets.UTF_8);
    }

    @BeforeAll
    static void start() throws Exception {
        HttpServer provider = GatewayFixture.await(VERTX.createHttpServer(new HttpServerOptions().setHost("127.0.0.1"))
                .requestHandler(req -> req.body().onSuccess(b -> {
                    var resp = req.response().putHeader("content-type", "application/json");
                    String prompt = b.toString();
                    if (prompt.contains("hold")) {
                        // Half now; the rest when the test lets it go.
                        resp.putHeader("content-length", Integer.toString(ANSWER.length))
                                .write(Buffer.buffer(ANSWER).slice(0, ANSWER.length / 2));
                        HELD.add(() -> VERTX.runOnContext(v -> resp.end(Buffer.buffer(ANSWER)
                                .slice(ANSWER.length / 2, ANSWER.length))));
                    } else if (prompt.contains("chunked")) {
                        // No length declared: the gateway's room grows with the answer.
                        resp.setChunked(true);
                        for (int at = 0; at < ANSWER.length; at += 16_384) {
                            resp.write(Buffer.buffer(ANSWER).slice(at, Math.min(ANSWER.length, at + 16_384)));
                        }
                        resp.end();
                    } else {
                        resp.end(Buffer.buffer(ANSWER));
                    }
                })).listen(0));
        patient = gateway(provider.actualPort(), "30s");
        hasty = gateway(provider.actualPort(), "300ms");
    }

    private static Gateway gateway(int providerPort, String wait) throws Exception {
        return GatewayFixture.await(Gateway.builder(ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0, max_answer_bytes: 200000, translation_budget_bytes: 300000,
                          translation_wait: %s }
                deployments: { d: { kind: anthropic, base_url: "http://127.0.0.1:%d" } }
                profiles: { p: { deployment: d, model: claude-sonnet-4 } }
                orgs: { o: { tenants: { t: { teams: { x: { keys: { k: { secret: "sk-translate" } } } } } } } }
                """.formatted(wait, providerPort), "budget.yaml", v -> null)).instances(2).start()); // a Vert.x each: on one, two listeners on port 0 share a port
    }

    @AfterEach
    void letGoAndBalance() throws Exception {
        HELD.forEach(Runnable::run);
        HELD.clear();
        for (Gateway g : List.of(patient, hasty)) {
            GatewayFixture.awaitCondition(VERTX, () -> g.counters().balanced() && g.translationBytesHeld() == 0
                    && g.translationWaiting() == 0, () -> g.counters() + ", held " + g.translationBytesHeld());
        }
    }

    @AfterAll
    static void stop() throws Exception {
        GatewayFixture.await(patient.stop());
        GatewayFixture.await(hasty.stop());
        GatewayFixture.await(VERTX.close());
    }

    private static CompletableFuture<HttpResponse<String>> chat(Gateway g, String content) {
        return HTTP.sendAsync(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30)).header("authorization", "Bearer sk-translate")
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"p\",\"max_tokens\":100,\"messages\":[{\"role\":"
                        + "\"user\",\"content\":\"" + content + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Two answers half read on {@code g}: the budget's 300,000 bytes all held. */
    private static List<CompletableFuture<HttpResponse<String>>> fillTheBudget(Gateway g) throws Exception {
        var held = List.of(chat(g, "hold 1"), chat(g, "hold 2"));
        GatewayFixture.awaitCondition(VERTX, () -> g.translationBytesHeld() == 2L * ANSWER_BYTES,
                () -> "held " + g.translationBytesHeld() + ", " + g.counters() + " provider saw " + HELD.size());
        return held;
    }

    @Test
    void anAnswerThatFindsNoRoomWaitsUntilAnotherGivesItsRoomBack() throws Exception {
        var held = fillTheBudget(patient);

        var third = chat(patient, "hello");
        GatewayFixture.awaitCondition(VERTX, () -> patient.translationWaiting() == 1, () -> "none waiting: " + patient.counters() + " held " + patient.translationBytesHeld());
        assertThatThrownBy(() -> third.get(300, TimeUnit.MILLISECONDS)).as("it waits while the budget is spent")
                .isInstanceOf(TimeoutException.class);
        assertThat(patient.translationBytesHeld()).as("holding nothing while it waits").isEqualTo(2L * ANSWER_BYTES);

        HELD.forEach(Runnable::run);
        HELD.clear();
        for (var r : List.of(held.get(0), held.get(1), third)) {
            HttpResponse<String> answered = r.get(20, TimeUnit.SECONDS);
            assertThat(answered.statusCode()).isEqualTo(200);
            assertThat(answered.body()).contains("\"object\":\"chat.completion\"", "\"completion_tokens\":70");
        }
    }

    @Test
    void pastTheWaitTheAnswerIs503WithARetryHintAndItsReservationEnds() throws Exception {
        var held = fillTheBudget(hasty);
        long settled = hasty.counters().reservationsSettled();

        HttpResponse<String> third = chat(hasty, "hello").get(20, TimeUnit.SECONDS);

        assertThat(third.statusCode()).isEqualTo(503);
        assertThat(third.headers().firstValue("retry-after")).hasValue("2");
        assertThat(third.body()).contains("\"code\":\"translation_budget_exhausted\"", "server.translation_wait");
        GatewayFixture.awaitCondition(VERTX, () -> hasty.counters().reservationsSettled() == settled + 1,
                () -> hasty.counters().toString());
        HELD.forEach(Runnable::run);
        HELD.clear();
        assertThat(held.get(0).get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(held.get(1).get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void anAnswerWithoutALengthIsGivenRoomAsItGrows() throws Exception {
        HttpResponse<String> r = chat(patient, "chunked").get(20, TimeUnit.SECONDS);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"completion_tokens\":70");
    }
}
