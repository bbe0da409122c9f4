package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Waiting in the class queue on the event loop, and the gateway's own bounded retries of provider 429s. */
class QueueAndRetryTest {

    // Adaptive control would cool the flaky deployment down after its first 429; here only retries are under test.
    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(false);

    static String chat(String profile) {
        return "{\"model\":\"" + profile + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":5}";
    }

    @Test
    void batchRequestsBeyondTheBurstWaitTheirTurnInsteadOfFailing() throws Exception {
        // rpm 600 with a burst of 1: one request now, then one every 100 ms.
        // A thread per request, so that all four are in flight at once (the common pool has one thread on two cores).
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return f.post("/v1/chat/completions", GatewayFixture.KEY_QUEUED, chat("chat"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, clients));
        }
        clients.shutdown();
        int queued = 0;
        for (CompletableFuture<HttpResponse<String>> c : sent) {
            HttpResponse<String> r = c.get();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            if (r.headers().firstValue("x-sluice-queued-ms").isPresent()) {
                queued++;
                // The wait is explained: the key's own bucket when it was short on arrival, the
                // gateway's queue when it arrived behind others; the predicted wait against the class budget.
                assertThat(r.headers().firstValue("x-sluice-explanation")).hasValueSatisfying(h -> assertThat(h)
                        .matches("scope=(key:queued dimension=rpm|gateway dimension=none) paused=false reserve=false "
                                + "predicted_wait_ms=\\d+( service_ms=\\d+)? budget_ms=1200000 bound_by=class"));
            }
        }
        assertThat(queued).isGreaterThanOrEqualTo(2);
    }

    @Test
    void providerRejectionsAreRetriedWithinTheTenPercentBudget() throws Exception {
        long before = f.gateway.counters().gatewayRetries();
        int sent = 0;
        while (f.gateway.counters().gatewayRetries() == before && sent < 40) {
            f.post("/v1/chat/completions", GatewayFixture.KEY_BATCH, chat("flaky"));
            sent++;
        }
        long retries = f.gateway.counters().gatewayRetries() - before;
        assertThat(retries).isEqualTo(1);
        // The first retry is possible only after ten first attempts have paid for it.
        assertThat(sent).isGreaterThanOrEqualTo(10);
    }
}
