package dev.sluice.mock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.ProviderLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class FaultsAndControlTest extends MockHarness {

    private static final String STREAM = CHAT.replace("}]", "}],\"stream\":true,\"stream_options\":{\"include_usage\":true}");

    private MockProviderServer openAi() {
        return start(MockConfig.defaults(Flavour.OPENAI));
    }

    @Nested
    class Faults {

        @Test
        void connectionResetBeforeAnyResponse() {
            var s = openAi();
            assertThatThrownBy(() -> post(s, "/v1/chat/completions", CHAT, "x-mock-fault", "reset"))
                    .isInstanceOf(UncheckedIOException.class);
            assertThat(s.stats().fault("reset")).isEqualTo(1);
            assertThat(s.stats().attempts().getFirst().status()).isZero();
        }

        @Test
        void serverErrorIs500WithTheFlavoursBody() {
            var s = openAi();
            var r = post(s, "/v1/chat/completions", CHAT, "x-mock-fault", "server_error");
            assertThat(r.statusCode()).isEqualTo(500);
            assertThat(json(r).path("error").path("type").asText()).isEqualTo("server_error");
        }

        @Test
        void overloadIs503ForOpenAi() {
            var r = post(openAi(), "/v1/chat/completions", CHAT, "x-mock-fault", "overloaded");
            assertThat(r.statusCode()).isEqualTo(503);
        }

        @Test
        void garbageBodyIsNotJsonDespiteStatus200() {
            var s = openAi();
            var r = post(s, "/v1/chat/completions", CHAT, "x-mock-fault", "garbage");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).startsWith("<html>");
            assertThatThrownBy(() -> json(r)).isInstanceOf(UncheckedIOException.class);
        }

        @Test
        void truncatedStreamEndsCleanlyWithoutItsLastChunks() {
            var s = openAi();
            var r = post(s, "/v1/chat/completions", STREAM, "x-mock-output-tokens", "40", "x-mock-fault", "truncate");
            assertThat(r.statusCode()).isEqualTo(200);
            List<String> data = sseData(r.body());
            // role chunk + 5 of the 10 content chunks; no finish, usage or [DONE]
            assertThat(data).hasSize(6).doesNotContain("[DONE]");
            assertThat(s.stats().tenant("anonymous").outputTokens()).isEqualTo(20);
        }

        @Test
        void truncatedNonStreamedBodyIsHalfAJsonDocument() {
            var r = post(openAi(), "/v1/chat/completions", CHAT, "x-mock-fault", "truncate");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThatThrownBy(() -> json(r)).isInstanceOf(UncheckedIOException.class);
        }

        @Test
        void midStreamResetDeliversSomeChunksThenBreaksTheConnection() throws Exception {
            var s = openAi();
            HttpRequest req = request(s, "/v1/chat/completions").POST(HttpRequest.BodyPublishers.ofString(STREAM))
                    .header("x-mock-output-tokens", "40").header("x-mock-fault", "reset_mid_stream").build();
            HttpResponse<InputStream> r = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            boolean broke = false;
            try (InputStream in = r.body()) {
                byte[] buf = new byte[4096];
                for (int n; (n = in.read(buf)) >= 0; ) {
                    received.write(buf, 0, n);
                }
            } catch (IOException e) {
                broke = true;
            }
            String text = received.toString(StandardCharsets.UTF_8);
            assertThat(broke).isTrue();
            assertThat(text).contains("chat.completion.chunk").doesNotContain("[DONE]");
        }

        @Test
        void latencySpikeDelaysTheAnswer() {
            var s = start(MockConfig.builder(Flavour.OPENAI)
                    .faults(FaultConfig.builder().spikeDelay(Duration.ofMillis(300)).build()).build());
            long t0 = System.nanoTime();
            assertThat(post(s, "/v1/chat/completions", CHAT, "x-mock-fault", "spike").statusCode()).isEqualTo(200);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(s.stats().fault("spike")).isEqualTo(1);
        }

        @Test
        void randomFaultsFollowTheSeed() {
            FaultConfig half = FaultConfig.builder().serverError(0.5).build();
            var a = start(MockConfig.builder(Flavour.OPENAI).faults(half).seed(7).build());
            var b = start(MockConfig.builder(Flavour.OPENAI).faults(half).seed(7).build());
            List<Integer> fromA = new ArrayList<>();
            List<Integer> fromB = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                fromA.add(post(a, "/v1/chat/completions", CHAT).statusCode());
                fromB.add(post(b, "/v1/chat/completions", CHAT).statusCode());
            }
            assertThat(fromA).isEqualTo(fromB).contains(200, 500);
            assertThat(a.stats().fault("server_error")).isEqualTo(fromA.stream().filter(c -> c == 500).count());
        }

        @Test
        void xShouldRetryIsSentOnErrorsWhenConfigured() {
            var s = start(MockConfig.builder(Flavour.OPENAI)
                    .faults(FaultConfig.builder().shouldRetry(ShouldRetry.FALSE).build()).build());
            var r = post(s, "/v1/chat/completions", CHAT, "x-mock-fault", "server_error");
            assertThat(r.headers().firstValue("x-should-retry")).contains("false");
            s.setFaults(FaultConfig.builder().shouldRetry(ShouldRetry.TRUE).build());
            var bad = post(s, "/v1/chat/completions", CHAT, "x-mock-status", "400");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.headers().firstValue("x-should-retry")).contains("true");
        }

        @Test
        void concurrencyLimitHoldsWhileAnswersAreInFlight() {
            var s = start(MockConfig.builder(Flavour.OPENAI)
                    .limits(ProviderLimits.builder().maxConcurrency(1).build())
                    .latency(new LatencyConfig(Duration.ofMillis(300), 0, 4)).build());
            HttpRequest slow = request(s, "/v1/chat/completions").POST(HttpRequest.BodyPublishers.ofString(CHAT)).build();
            CompletableFuture<HttpResponse<String>> first = client.sendAsync(slow, HttpResponse.BodyHandlers.ofString());
            // The first request is admitted the moment it arrives; wait until the mock has seen it.
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (s.stats().tenant("anonymous").accepted() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            var second = post(s, "/v1/chat/completions", CHAT);
            assertThat(second.statusCode()).isEqualTo(429);
            assertThat(json(second).path("error").path("message").asText()).contains("concurrent requests");
            assertThat(first.join().statusCode()).isEqualTo(200);
            assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
        }

        @Test
        void aClientLeavingMidStreamFreesItsConcurrencySlot() throws Exception {
            // 1,000 tokens at 100 a second would take 10 s; the client leaves after the first bytes.
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().maxConcurrency(1).build())
                    .latency(new LatencyConfig(Duration.ZERO, 100, 4)).build());
            HttpRequest req = request(s, "/v1/chat/completions")
                    .POST(HttpRequest.BodyPublishers.ofString(STREAM.replace("\"max_tokens\":100", "\"max_tokens\":1000")))
                    .header("x-mock-output-tokens", "1000").build();
            HttpResponse<InputStream> r = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                assertThat(in.read()).isNotNegative();
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (s.stats().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(s.stats().inFlight()).isZero();
            assertThat(s.stats().tenant("anonymous").outputTokens()).isLessThan(1_000);
            assertThat(post(s, "/v1/chat/completions", CHAT, "x-mock-output-tokens", "1").statusCode()).isEqualTo(200);
        }

        @Test
        void latencyModelSpacesTheStream() {
            // 100 ms to the first token, then 20 tokens at 200 a second in chunks of 4: 20 ms apart.
            var s = start(MockConfig.builder(Flavour.OPENAI).latency(new LatencyConfig(Duration.ofMillis(100), 200, 4)).build());
            long t0 = System.nanoTime();
            var r = post(s, "/v1/chat/completions", STREAM, "x-mock-output-tokens", "20");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
            assertThat(sseData(r.body()).getLast()).isEqualTo("[DONE]");
        }

        @Test
        void aLongStreamArrivesWholeThroughBackpressure() {
            var s = openAi();
            String req = STREAM.replace("\"max_tokens\":100", "\"max_tokens\":100000");
            var r = post(s, "/v1/chat/completions", req, "x-mock-output-tokens", "60000");
            List<String> data = sseData(r.body());
            assertThat(data.getLast()).isEqualTo("[DONE]");
            assertThat(json(data.get(data.size() - 2)).path("usage").path("completion_tokens").asLong()).isEqualTo(60_000);
            assertThat(s.stats().tenant("anonymous").outputTokens()).isEqualTo(60_000);
        }
    }

    @Nested
    class RetryHints {

        /** A second request 24 tokens short of a 1,000 TPM bucket: the model's wait is 1.44 s. */
        private HttpResponse<String> limited(RetryAfterConfig hints) {
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().tpm(1_000).build())
                    .retryAfter(hints).build());
            String req = CHAT.replace("\"max_tokens\":100", "\"max_tokens\":500");
            post(s, "/v1/chat/completions", req, "x-mock-output-tokens", "500");
            var r = post(s, "/v1/chat/completions", req);
            assertThat(r.statusCode()).isEqualTo(429);
            return r;
        }

        private static String retryAfter(HttpResponse<String> r) {
            return r.headers().firstValue("retry-after").orElse("<absent>");
        }

        @Test
        void integerSecondsRoundUp() {
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.INTEGER_SECONDS, false)))).isEqualTo("2");
        }

        @Test
        void fractionalSeconds() {
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.FRACTIONAL_SECONDS, false)))).isEqualTo("1.44");
        }

        @Test
        void httpDateInTheFuture() {
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.HTTP_DATE, false))))
                    .isEqualTo("Thu, 01 Jan 2026 00:00:02 GMT");
        }

        @Test
        void httpDateInThePast() {
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.PAST_HTTP_DATE, false))))
                    .isEqualTo("Wed, 31 Dec 2025 23:00:00 GMT");
        }

        @Test
        void garbageAndAbsent() {
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.GARBAGE, false)))).isEqualTo("in a little while");
            assertThat(retryAfter(limited(RetryAfterConfig.of(RetryAfterForm.ABSENT, false)))).isEqualTo("<absent>");
        }

        @Test
        void retryAfterMsAlongsideOrAlone() {
            var both = limited(RetryAfterConfig.of(RetryAfterForm.INTEGER_SECONDS, true));
            assertThat(both.headers().firstValue("retry-after-ms")).contains("1440");
            var alone = limited(RetryAfterConfig.of(RetryAfterForm.ABSENT, true));
            assertThat(alone.headers().firstValue("retry-after-ms")).contains("1440");
            assertThat(retryAfter(alone)).isEqualTo("<absent>");
        }

        @Test
        void fixedDelaysSeparateSdkBehaviours() {
            var ninety = limited(RetryAfterConfig.of(RetryAfterForm.INTEGER_SECONDS, false).withFixedDelay(Duration.ofSeconds(90)));
            assertThat(retryAfter(ninety)).isEqualTo("90");
            var zero = limited(RetryAfterConfig.of(RetryAfterForm.ABSENT, true).withFixedDelay(Duration.ZERO));
            assertThat(zero.headers().firstValue("retry-after-ms")).contains("0");
        }
    }

    @Nested
    class Ietf {

        private final ProviderLimits limits = ProviderLimits.builder().rpm(60).tpm(1_000).build();

        @Test
        void policiesAndStatesInStructuredFieldSyntax() {
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(limits).ietfHeaders(true).build());
            var r = post(s, "/v1/chat/completions", CHAT);
            assertThat(r.headers().firstValue("RateLimit-Policy")).contains("\"requests\";q=10;w=10, \"tokens\";q=1000;w=60");
            // 112 tokens used: 6.72 s to refill, rounded up.
            assertThat(r.headers().firstValue("RateLimit")).contains("\"requests\";r=9;t=10, \"tokens\";r=888;t=7");
        }

        @Test
        void splitLinesPutEachPolicyOnItsOwnLine() {
            var s = start(MockConfig.builder(Flavour.GEMINI).limits(limits).ietfHeaders(true).ietfSplitLines(true).build());
            var r = post(s, "/v1beta/models/gemini-2.5-flash:generateContent",
                    "{\"contents\":[{\"parts\":[{\"text\":\"hi\"}]}]}");
            assertThat(r.headers().allValues("RateLimit-Policy")).containsExactly("\"requests\";q=10;w=10",
                    "\"tokens\";q=1000;w=60");
            assertThat(r.headers().allValues("RateLimit")).hasSize(2);
        }

        @Test
        void problemJson429NamesTheViolatedPolicy() {
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().tpm(200).build())
                    .rateLimitBody(RateLimitBody.PROBLEM_JSON).build());
            post(s, "/v1/chat/completions", CHAT, "x-mock-output-tokens", "100");
            var r = post(s, "/v1/chat/completions", CHAT);
            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(r.headers().firstValue("content-type")).contains("application/problem+json");
            JsonNode body = json(r);
            assertThat(body.path("type").asText()).isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
            assertThat(body.path("status").asInt()).isEqualTo(429);
            assertThat(body.path("violated-policies").get(0).asText()).isEqualTo("tokens");
        }
    }

    @Nested
    class Control {

        @Test
        void limitsChangeAtRunTime() {
            var s = openAi();
            assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            var set = post(s, "/_mock/limits", "{\"rpm\":6,\"requestWindowMs\":60000}");
            assertThat(set.statusCode()).isEqualTo(200);
            assertThat(json(set).path("rpm").asLong()).isEqualTo(6);
            assertThat(json(get(s, "/_mock/limits")).path("requestWindowMs").asLong()).isEqualTo(60_000);
            for (int i = 0; i < 6; i++) {
                assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            }
            assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(429);
            assertThat(s.limits().rpm()).isEqualTo(6);
        }

        @Test
        void invalidControlRequestsAreRefusedWithTheField() {
            var s = openAi();
            var typo = post(s, "/_mock/limits", "{\"rpmm\":6}");
            assertThat(typo.statusCode()).isEqualTo(400);
            assertThat(json(typo).path("error").asText()).startsWith("limits.rpmm: unknown field");
            var negative = post(s, "/_mock/limits", "{\"tpm\":-1}");
            assertThat(json(negative).path("error").asText()).isEqualTo("tpm: -1 (expected: >= 0)");
            var probability = post(s, "/_mock/faults", "{\"serverError\":2}");
            assertThat(json(probability).path("error").asText()).isEqualTo("serverError: 2.0 (expected: between 0 and 1)");
        }

        @Test
        void faultsChangeAtRunTime() {
            var s = openAi();
            post(s, "/_mock/faults", "{\"serverError\":1.0,\"shouldRetry\":\"false\"}");
            assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(500);
            post(s, "/_mock/faults", "{\"serverError\":0}");
            assertThat(post(s, "/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            assertThat(json(get(s, "/_mock/faults")).path("shouldRetry").asText()).isEqualTo("FALSE");
        }

        @Test
        void statsRecordTenantsTokensAndRetryHeadersPerAttempt() {
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().tpm(200).build()).build());
            post(s, "/v1/chat/completions", CHAT, "x-mock-tenant", "acme", "x-mock-output-tokens", "100",
                    "x-stainless-retry-count", "0", "Idempotency-Key", "stainless-java-retry-1");
            post(s, "/v1/chat/completions", CHAT, "x-mock-tenant", "acme",
                    "x-stainless-retry-count", "1", "Idempotency-Key", "stainless-java-retry-1");
            JsonNode stats = json(get(s, "/_mock/stats"));
            JsonNode acme = stats.path("tenants").path("acme");
            assertThat(acme.path("accepted").asLong()).isEqualTo(1);
            assertThat(acme.path("limited").path("TOKENS").asLong()).isEqualTo(1);
            assertThat(acme.path("inputTokens").asLong()).isEqualTo(CHAT_PROMPT_TOKENS);
            assertThat(acme.path("outputTokens").asLong()).isEqualTo(100);
            JsonNode attempts = stats.path("attempts");
            assertThat(attempts).hasSize(2);
            assertThat(attempts.get(0).path("retryCount").asText()).isEqualTo("0");
            assertThat(attempts.get(1).path("retryCount").asText()).isEqualTo("1");
            assertThat(attempts.get(1).path("idempotencyKey").asText()).isEqualTo("stainless-java-retry-1");
            assertThat(attempts.get(1).path("status").asInt()).isEqualTo(429);
            assertThat(attempts.get(1).path("outcome").asText()).isEqualTo("limited:TOKENS");
            assertThat(s.stats().tenant("acme").limitedBy(LimitKind.TOKENS)).isEqualTo(1);
        }

        @Test
        void resetForgetsUsageAndRestoresTheConfiguredLimits() {
            var s = start(MockConfig.builder(Flavour.OPENAI).limits(ProviderLimits.builder().rpm(6).build()).build());
            post(s, "/_mock/limits", "{\"rpm\":0}");
            post(s, "/v1/chat/completions", CHAT);
            assertThat(json(post(s, "/_mock/reset", "")).path("reset").asBoolean()).isTrue();
            assertThat(s.limits().rpm()).isEqualTo(6);
            assertThat(s.stats().attempts()).isEmpty();
            assertThat(s.stats().tenants()).isEmpty();
            assertThat(s.stats().totalRequests()).isZero();
        }

        @Test
        void unknownControlPathIs404() {
            assertThat(get(openAi(), "/_mock/nothing").statusCode()).isEqualTo(404);
        }
    }
}
