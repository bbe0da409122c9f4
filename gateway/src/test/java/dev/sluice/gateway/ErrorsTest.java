package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Local rejections, provider rejections, bad input and broken upstreams, each answered exactly once. */
class ErrorsTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();
    static final ObjectMapper JSON = new ObjectMapper();

    static String chat(String profile, String extra) {
        return "{\"model\":\"" + profile + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"max_tokens\":20"
                + extra + "}";
    }

    static JsonNode error(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body()).path("error");
    }

    @Test
    void localRejectionCarriesTheNormalisedBodyAndRetryHeadersOnEveryRoute() throws Exception {
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY_TIGHT, chat("chat", "")).statusCode()).isEqualTo(200);

        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY_TIGHT, chat("chat", ""));
        assertThat(r.statusCode()).isEqualTo(429);
        long ms = Long.parseLong(r.headers().firstValue("retry-after-ms").orElseThrow());
        assertThat(ms).isBetween(50_000L, 60_000L);
        assertThat(r.headers().firstValue("retry-after")).contains(Long.toString((ms + 999) / 1000));
        assertThat(r.headers().firstValue("x-should-retry")).isEmpty();
        JsonNode e = error(r);
        assertThat(e.path("type").asText()).isEqualTo("rate_limited");
        assertThat(e.path("code").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(e.path("sluice_code").asText()).isEqualTo("key_rpm_exhausted");
        assertThat(e.path("limiter").asText()).isEqualTo("rpm");
        assertThat(e.path("scope").asText()).isEqualTo("key:tight");
        assertThat(e.path("provider").asText()).isEqualTo("openai");
        assertThat(e.path("model_profile").asText()).isEqualTo("chat");
        assertThat(e.path("provider_model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(e.path("retry_after_ms").asLong()).isEqualTo(ms);
        assertThat(e.path("tenant_id").asText()).isEqualTo("acme");
        assertThat(e.path("api_key_id").asText()).isEqualTo("tight");
        assertThat(e.path("request_class").asText()).isEqualTo("interactive");
        assertThat(e.path("estimated_input_tokens").asLong()).isPositive();
        assertThat(e.path("estimated_output_tokens").asLong()).isEqualTo(20);
        assertThat(e.path("gateway_decision").asText()).isEqualTo("rejected_locally");
        assertThat(e.path("fallback_allowed").asBoolean(true)).isFalse();
        assertThat(e.path("trace_id").asText()).isEqualTo(r.headers().firstValue("x-sluice-trace-id").orElseThrow());
        assertThat(e.path("message").asText()).isNotBlank();

        HttpResponse<String> a = f.post("/v1/messages", null, "{\"model\":\"claude\",\"max_tokens\":20,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", "x-api-key", GatewayFixture.KEY_TIGHT);
        assertThat(a.statusCode()).isEqualTo(429);
        JsonNode ab = JSON.readTree(a.body());
        assertThat(ab.path("type").asText()).isEqualTo("error");
        assertThat(ab.path("error").path("type").asText()).isEqualTo("rate_limit_error");
        assertThat(ab.path("error").path("gateway_decision").asText()).isEqualTo("rejected_locally");

        HttpResponse<String> g = f.post("/v1beta/models/gemini:generateContent", null,
                "{\"contents\":[{\"parts\":[{\"text\":\"Hi\"}]}]}", "x-goog-api-key", GatewayFixture.KEY_TIGHT);
        assertThat(g.statusCode()).isEqualTo(429);
        JsonNode ge = error(g);
        assertThat(ge.path("code").asInt()).isEqualTo(429);
        assertThat(ge.path("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(ge.path("details").findValuesAsText("@type")).contains("type.googleapis.com/google.rpc.RetryInfo");
        assertThat(ge.path("reason").asText()).isEqualTo("key_rpm_exhausted");
        assertThat(f.gateway.counters().localRejections()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void spentDailyCapSaysDoNotRetryAndGivesTheRealWaitInTheBody() throws Exception {
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY_DAILY, chat("chat", "")).statusCode()).isEqualTo(200);
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY_DAILY, chat("chat", ""));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("x-should-retry")).contains("false");
        // No token hint: a library that ignores x-should-retry must not read "retry in 1 ms".
        assertThat(r.headers().firstValue("retry-after-ms")).isEmpty();
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
        assertThat(error(r).path("retry_after_ms").asLong()).isGreaterThan(1);
        assertThat(error(r).path("gateway_decision").asText()).isEqualTo("budget_exhausted");
        assertThat(error(r).path("retryable").asBoolean(true)).isFalse();
    }

    @Test
    void pausedKeyIsRefusedWithoutRetry() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY_PAUSED, chat("chat", ""));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("x-should-retry")).contains("false");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
        assertThat(r.headers().firstValue("retry-after-ms")).isEmpty();
        assertThat(error(r).path("type").asText()).isEqualTo("rate_limited");
        assertThat(error(r).path("gateway_decision").asText()).isEqualTo("paused");
    }

    @Test
    void classHeaderMayLowerButNeverRaiseTheKeysClass() throws Exception {
        HttpResponse<String> raised = f.post("/v1/chat/completions", GatewayFixture.KEY_PAUSED, chat("chat", ""),
                "x-sluice-class", "critical");
        assertThat(error(raised).path("request_class").asText()).isEqualTo("interactive");
        HttpResponse<String> lowered = f.post("/v1/chat/completions", GatewayFixture.KEY_PAUSED, chat("chat", ""),
                "x-sluice-class", "batch");
        assertThat(error(lowered).path("request_class").asText()).isEqualTo("batch");
    }

    @Test
    void unknownClassOrBadDeadlineHeaderIs400() throws Exception {
        HttpResponse<String> c = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("chat", ""), "x-sluice-class", "vip");
        assertThat(c.statusCode()).isEqualTo(400);
        assertThat(error(c).path("param").asText()).isEqualTo("x-sluice-class");
        HttpResponse<String> d = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("chat", ""),
                "x-sluice-deadline-ms", "-3");
        assertThat(d.statusCode()).isEqualTo(400);
        assertThat(error(d).path("code").asText()).isEqualTo("invalid_deadline");
    }

    @Test
    void providerRejectionAfterAdmissionIsNormalised() throws Exception {
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY, chat("limited", "")).statusCode()).isEqualTo(200);
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("limited", ""));
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode e = error(r);
        assertThat(e.path("gateway_decision").asText()).isEqualTo("admitted_then_provider_rejected");
        assertThat(e.path("scope").asText()).isEqualTo("deployment:limited");
        assertThat(r.headers().firstValue("retry-after-ms")).isPresent();
        assertThat(f.gateway.counters().providerRejections()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void malformedJsonIs400() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, "{\"model\": ");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).path("code").asText()).isEqualTo("invalid_json");
    }

    @Test
    void unknownModelIs404() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("no-such-profile", ""));
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(error(r).path("code").asText()).isEqualTo("model_not_found");
    }

    @Test
    void missingOrWrongKeyIs401() throws Exception {
        assertThat(f.post("/v1/chat/completions", null, chat("chat", "")).statusCode()).isEqualTo(401);
        HttpResponse<String> wrong = f.post("/v1/chat/completions", "sk-wrong", chat("chat", ""));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("sk-wrong");
    }

    @Test
    void bodyOverTheLimitIs413() throws Exception {
        String big = chat("chat", ",\"user\":\"" + "x".repeat(70_000) + "\"");
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, big);
        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void aRefusedBodyIsReadToItsEndSoTheClientGetsThe413AndTheConnectionServesOn() throws Exception {
        // The whole oversized request is written before anything is read: had the gateway closed the
        // connection with the body unread, the client would see a reset instead of the 413.
        String big = chat("chat", ",\"user\":\"" + "x".repeat(300_000) + "\"");
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(rawRequest(big).getBytes(StandardCharsets.UTF_8));
            out.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answers = readUntil(s.getInputStream(), "\"status\":\"ok\"");
            assertThat(answers).startsWith("HTTP/1.1 413").contains("request_too_large", "HTTP/1.1 200");
        }
    }

    /** Reads until {@code marker} has arrived (or the connection ends), and returns all of it. */
    static String readUntil(InputStream in, String marker) throws java.io.IOException {
        StringBuilder seen = new StringBuilder();
        byte[] buf = new byte[8192];
        for (int n; !seen.toString().contains(marker) && (n = in.read(buf)) > 0; ) {
            seen.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
        return seen.toString();
    }

    @Test
    void oversizedHeadersAre431() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("chat", ""), "x-padding",
                "p".repeat(10_000));
        assertThat(r.statusCode()).isEqualTo(431);
        assertThat(error(r).path("code").asText()).isEqualTo("headers_too_large");
        f.awaitBalanced();
    }

    @Test
    void aRequestLineTooLongIs414InTheErrorShape() throws Exception {
        long answered = f.gateway.counters().answered();
        String answer = rawExchange("GET /v1/" + "m".repeat(10_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        // The head was never read, so Netty answers in the oldest version it speaks.
        assertThat(answer).startsWith("HTTP/1.0 414").contains("\"code\":\"request_line_too_long\"");
        f.awaitBalanced();
        assertThat(f.gateway.counters().answered()).as("counted like any answer").isGreaterThan(answered);
    }

    @Test
    void aHeadThatIsNotHttpIs400InTheErrorShapeAndTheConnectionCloses() throws Exception {
        String answer = rawExchange("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Length: not-a-number\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 400").containsIgnoringCase("connection: close")
                .contains("\"code\":\"invalid_http\"");
        f.awaitBalanced();
    }

    @Test
    void anUnreadableHeadOnAnAnthropicPathGetsTheAnthropicErrorShape() throws Exception {
        String answer = rawExchange("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Length: not-a-number\r\n\r\n");
        assertThat(answer).contains(" 400 ").contains("\"type\":\"error\"").contains("\"code\":\"invalid_http\"");
    }

    @Test
    void aClientThatExpectsContinueIsToldToSendItsBody() throws Exception {
        String body = chat("chat", "");
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + GatewayFixture.KEY
                    + "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: "
                    + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertThat(readUntil(s.getInputStream(), "\r\n\r\n")).startsWith("HTTP/1.1 100 Continue");
            out.write(body.getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertThat(readUntil(s.getInputStream(), "\"usage\"")).startsWith("HTTP/1.1 200");
        }
    }

    /** Writes {@code request} on a fresh connection and reads until the gateway closes it. */
    private String rawExchange(String request) throws java.io.IOException {
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void nonJsonContentTypeIs415() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("chat", ""), "content-type",
                "text/plain");
        assertThat(r.statusCode()).isEqualTo(415);
    }

    @Test
    void silentUpstreamIs504() throws Exception {
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("fake-hang", ""));
        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(error(r).path("code").asText()).isEqualTo("upstream_timeout");
    }

    @Test
    void refusedUpstreamIs502AndReleasesTheReservation() throws Exception {
        long released = f.gateway.counters().reservationsReleased();
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat("closed", ""));
        assertThat(r.statusCode()).isEqualTo(502);
        // The answer is written before the release is counted (on the event loop, just after): wait for it, bounded.
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (f.gateway.counters().reservationsReleased() < released + 1 && System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        assertThat(f.gateway.counters().reservationsReleased()).isEqualTo(released + 1);
    }

    @Test
    void resetAndGarbageUpstreamsAre502() throws Exception {
        for (String p : new String[] {"fake-reset", "fake-garbage", "fake-not-json"}) {
            HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY, chat(p, ""));
            assertThat(r.statusCode()).as(p).isEqualTo(502);
        }
    }

    static String rawRequest(String body) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + GatewayFixture.KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    @Test
    void clientThatStopsReadingMidStreamStillEndsItsReservation() throws Exception {
        FakeUpstream up = f.fakes.get(FakeUpstream.Mode.ENDLESS_STREAM);
        int closedBefore = up.closed.get();
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            s.setReceiveBufferSize(4096);
            OutputStream out = s.getOutputStream();
            out.write(rawRequest(chat("fake-endless-stream", ",\"stream\":true")).getBytes(StandardCharsets.UTF_8));
            out.flush();
            // Never read: the gateway must pause the upstream, then give up when it goes idle.
            f.awaitCondition(() -> up.closed.get() > closedBefore, () -> "upstream stream was never cut");
            f.awaitBalanced();
        }
    }

    @Test
    void clientThatDisconnectsMidStreamCancelsTheUpstream() throws Exception {
        FakeUpstream up = f.fakes.get(FakeUpstream.Mode.ENDLESS_STREAM);
        int closedBefore = up.closed.get();
        long settled = f.gateway.counters().reservationsSettled();
        try (Socket s = new Socket("127.0.0.1", f.gateway.port())) {
            OutputStream out = s.getOutputStream();
            out.write(rawRequest(chat("fake-endless-stream", ",\"stream\":true")).getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            int read = in.read(buf);
            assertThat(new String(buf, 0, read, StandardCharsets.UTF_8)).startsWith("HTTP/1.1 200");
        }
        f.awaitCondition(() -> up.closed.get() > closedBefore, () -> "upstream was not cancelled");
        f.awaitBalanced();
        assertThat(f.gateway.counters().reservationsSettled()).isEqualTo(settled + 1);
    }
}
