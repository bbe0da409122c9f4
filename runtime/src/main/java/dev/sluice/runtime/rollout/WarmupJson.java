package dev.sluice.runtime.rollout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limits.Dimension;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * A warm-up's decisions and states as JSON: the shape the admin API answers with and the journal
 * keeps ({@code warmup.state}), read back by {@link #readDecision} and {@link #readState}.
 */
public final class WarmupJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private WarmupJson() {}

    /** A decision as the admin API shows it. */
    public static ObjectNode decision(WarmupDecision d) {
        ObjectNode n = JSON.createObjectNode();
        n.put("at_epoch_ms", d.atEpochMillis()).put("action", d.action()).put("by", d.by())
                .put("grown_minutes", d.grown()).put("reason", d.reason());
        ObjectNode rates = n.putObject("rates");
        d.rates().forEach((dim, r) -> rates.put(dim.limiterName(), r));
        return n;
    }

    /** What the journal keeps of one decision: the warm-up, its tenant, the decision and the state it left. */
    public static ObjectNode journalState(WarmupDecision d, WarmupState s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", d.warmup()).put("tenant", d.tenant());
        n.set("decision", decision(d));
        n.put("status", s.status().wireName()).put("grown_minutes", s.grown())
                .put("paused_by_operator", s.pausedByOperator()).put("started_at_epoch_ms", s.startedAtEpochMillis())
                .put("version", s.version());
        return n;
    }

    /** The state of a {@link #journalState}. @throws IllegalArgumentException for one not written by it */
    public static WarmupState readState(JsonNode n) {
        Warmup.Status status = Warmup.Status.valueOf(n.path("status").asText().toUpperCase(Locale.ROOT));
        return new WarmupState(status, n.path("grown_minutes").asInt(), n.path("paused_by_operator").asBoolean(),
                n.path("started_at_epoch_ms").asLong(), n.path("version").asLong());
    }

    /** The decision of a {@link #journalState}. @throws IllegalArgumentException for one not written by it */
    public static WarmupDecision readDecision(JsonNode n) {
        JsonNode d = n.path("decision");
        Map<Dimension, Long> rates = new EnumMap<>(Dimension.class);
        d.path("rates").properties().forEach(f -> rates.put(Dimension.byLimiterName(f.getKey())
                .orElseThrow(() -> new IllegalArgumentException("rates." + f.getKey())), f.getValue().asLong()));
        return new WarmupDecision(n.path("id").asText(), n.path("tenant").asText(), d.path("at_epoch_ms").asLong(),
                d.path("action").asText(), d.path("by").asText(), d.path("grown_minutes").asInt(), rates,
                d.path("reason").asText());
    }
}
