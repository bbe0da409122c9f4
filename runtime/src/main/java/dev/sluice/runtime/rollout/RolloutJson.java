package dev.sluice.runtime.rollout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A rollout's decisions and states as JSON: the shape the admin API answers with and the journal
 * keeps ({@code rollout.state}), read back by {@link #readDecision} and {@link #readState}.
 * Durations are in milliseconds on the wire; the journal keeps the figures' nanoseconds, so that
 * a restored history says what the live one said.
 */
public final class RolloutJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RolloutJson() {}

    /** A decision as the admin API shows it, with its interval's figures when the analysis made it. */
    public static ObjectNode decision(RolloutDecision d) {
        ObjectNode n = JSON.createObjectNode();
        n.put("at_epoch_ms", d.atEpochMillis()).put("action", d.action().wireName()).put("by", d.by())
                .put("stage_before", d.stageBefore()).put("stage_after", d.stageAfter())
                .put("percent_after", d.percentAfter()).put("reason", d.reason());
        d.figures().ifPresent(f -> n.set("figures", figures(f)));
        return n;
    }

    private static ObjectNode figures(IntervalFigures f) {
        ObjectNode n = JSON.createObjectNode();
        n.put("attempts", f.attempts()).put("throttled", f.throttled()).put("failed", f.failed())
                .put("requests", f.requests()).put("fell_back", f.fellBack())
                .put("provider_429_rate", f.provider429Rate()).put("error_rate", f.errorRate())
                .put("fallback_rate", f.fallbackRate()).put("estimate_error", f.estimateError());
        f.p95LatencyNanos().ifPresent(v -> n.put("p95_latency_ms", v / 1_000_000).put("p95_latency_ns", v));
        f.p95TimeToFirstTokenNanos().ifPresent(v -> n.put("p95_ttft_ms", v / 1_000_000).put("p95_ttft_ns", v));
        f.p95QueueWaitNanos().ifPresent(v -> n.put("p95_queue_wait_ms", v / 1_000_000).put("p95_queue_wait_ns", v));
        return n;
    }

    /** What the journal keeps of one decision: the rollout, the decision and the state it left. */
    public static ObjectNode journalState(RolloutDecision d, RolloutState s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", d.rollout());
        n.set("decision", decision(d));
        n.put("status", s.status().wireName()).put("stage", s.stage()).put("paused_by_operator", s.pausedByOperator())
                .put("failed_intervals", s.failedIntervals()).put("version", s.version());
        return n;
    }

    /** The state of a {@link #journalState}. @throws IllegalArgumentException for one not written by it */
    public static RolloutState readState(JsonNode n) {
        Rollout.Status status = Rollout.Status.valueOf(n.path("status").asText().toUpperCase(java.util.Locale.ROOT));
        return new RolloutState(status, n.path("stage").asInt(-1), n.path("paused_by_operator").asBoolean(),
                n.path("failed_intervals").asInt(), n.path("version").asLong());
    }

    /** The decision of a {@link #journalState}. @throws IllegalArgumentException for one not written by it */
    public static RolloutDecision readDecision(JsonNode n) {
        JsonNode d = n.path("decision");
        RolloutDecision.Action action = RolloutDecision.Action.valueOf(
                d.path("action").asText().toUpperCase(java.util.Locale.ROOT));
        Optional<IntervalFigures> figures = Optional.empty();
        JsonNode f = d.path("figures");
        if (f.isObject()) {
            figures = Optional.of(new IntervalFigures(f.path("attempts").asLong(), f.path("throttled").asLong(),
                    f.path("failed").asLong(), f.path("requests").asLong(), f.path("fell_back").asLong(),
                    nanos(f, "p95_latency_ns"), nanos(f, "p95_ttft_ns"), nanos(f, "p95_queue_wait_ns"),
                    f.path("estimate_error").asDouble()));
        }
        return new RolloutDecision(n.path("id").asText(), d.path("at_epoch_ms").asLong(), action, d.path("by").asText(),
                d.path("stage_before").asInt(), d.path("stage_after").asInt(), d.path("percent_after").asDouble(),
                d.path("reason").asText(), figures);
    }

    private static OptionalLong nanos(JsonNode f, String field) {
        return f.has(field) ? OptionalLong.of(f.path(field).asLong()) : OptionalLong.empty();
    }
}
