package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The admin API limits its own callers: per token, and per address for callers without a valid one. */
class AdminRateLimitTest {

    @Test
    void aTokenBucketPerCallerHoldingATenthOfAMinute() {
        AtomicLong now = new AtomicLong();
        AdminRateLimit limit = new AdminRateLimit(600, now::get);
        for (int i = 0; i < 60; i++) {
            assertThat(limit.take("token:ops")).isZero();
        }
        assertThat(limit.take("token:ops")).isEqualTo(100);
        assertThat(limit.take("token:other")).isZero();
        now.addAndGet(100_000_000L);
        assertThat(limit.take("token:ops")).isZero();
        assertThat(limit.take("token:ops")).isEqualTo(100);
    }

    @Test
    void overTheRateTheListenerAnswers429WithRetryHints() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, max_requests_per_minute: 12, tokens: { ops: { scope: admin, token: "sla-rate" } } }
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """, "rate.yaml", v -> null);
        Vertx vertx = Vertx.vertx();
        Gateway g = Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest whoami = HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + "/admin/whoami"))
                    .header("authorization", "Bearer sla-rate").build();
            assertThat(http.send(whoami, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            HttpResponse<String> limited = http.send(whoami, HttpResponse.BodyHandlers.ofString());
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.body()).contains("admin_rate_limited");
            assertThat(limited.headers().firstValue("retry-after")).isPresent();
            HttpRequest health = HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + "/admin/health")).build();
            assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        } finally {
            g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
