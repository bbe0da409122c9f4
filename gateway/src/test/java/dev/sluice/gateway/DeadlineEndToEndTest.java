package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.governor.GovernorSnapshot;
import dev.sluice.governor.TrafficClass;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Deadlines through real HTTP: a request that cannot be answered before its deadline is refused at
 * once, explained; a queued request whose client closes its connection leaves the queue at once
 * and is charged nothing.
 */
class DeadlineEndToEndTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(false);

    private static final String CHAT = "{\"model\":\"chat\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
            + "\"max_tokens\":5}";

    private static int queuedBatch() {
        return f.gateway.governor().snapshot().lanes().stream().filter(l -> l.deployment().equals("oa"))
                .mapToInt(l -> l.queued().get(TrafficClass.BATCH)).sum();
    }

    private static long admittedFor(String tenant) {
        return f.gateway.governor().snapshot().lanes().stream().filter(l -> l.deployment().equals("oa"))
                .flatMap(l -> l.shares().stream()).filter(s -> s.tenant().equals(tenant))
                .mapToLong(GovernorSnapshot.ShareSnapshot::admitted).sum();
    }

    @Test
    void aRequestThatCannotBeAnsweredBeforeItsDeadlineIsRefusedAtOnceAndSaysWhy() throws Exception {
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY_SLOW_DEADLINE, CHAT).statusCode()).isEqualTo(200);

        // The key's next request fits in about a minute; the client gives it five seconds.
        HttpResponse<String> r = f.post("/v1/chat/completions", GatewayFixture.KEY_SLOW_DEADLINE, CHAT,
                "x-sluice-deadline-ms", "5000");

        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = new ObjectMapper().readTree(r.body()).path("error");
        assertThat(error.path("sluice_code").asText()).isEqualTo("deadline_cannot_be_met");
        assertThat(error.path("gateway_decision").asText()).isEqualTo("rejected_locally");
        assertThat(error.path("retry_after_ms").asLong()).isBetween(50_000L, 60_000L);
        JsonNode why = error.path("explanation");
        assertThat(why.path("scope").asText()).as(r.body()).isEqualTo("key:slow-deadline");
        assertThat(why.path("limiter").asText()).isEqualTo("rpm");
        assertThat(why.path("bound_by").asText()).isEqualTo("deadline");
        assertThat(why.path("paused").asBoolean()).isFalse();
        assertThat(why.path("predicted_wait_ms").asLong()).isBetween(50_000L, 60_000L);
        assertThat(why.path("wait_budget_ms").asLong()).isBetween(4_000L, 5_000L);
        assertThat(r.headers().firstValue("x-sluice-explanation")).hasValueSatisfying(h -> assertThat(h)
                .startsWith("scope=key:slow-deadline dimension=rpm paused=false reserve=false predicted_wait_ms=")
                .contains(" bound_by=deadline"));
        assertThat(error.path("message").asText()).contains("but its deadline is in");
    }

    @Test
    void aQueuedRequestWhoseClientClosesItsConnectionLeavesTheQueueAtOnceAndIsChargedNothing() throws Exception {
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY_SLOW, CHAT).statusCode()).isEqualTo(200);
        long opened = f.gateway.counters().reservationsOpened();
        long admitted = admittedFor("acme");

        byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), f.gateway.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer "
                    + GatewayFixture.KEY_SLOW + "\r\ncontent-type: application/json\r\ncontent-length: " + body.length
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            // About a minute to wait for the key's next request: it queues.
            f.awaitCondition(() -> queuedBatch() == 1, () -> "never queued: " + f.gateway.governor().snapshot());
        }

        f.awaitCondition(() -> queuedBatch() == 0, () -> "still queued after its client left");
        f.awaitBalanced();
        assertThat(f.gateway.counters().reservationsOpened()).isEqualTo(opened);
        assertThat(admittedFor("acme")).isEqualTo(admitted);
    }
}
