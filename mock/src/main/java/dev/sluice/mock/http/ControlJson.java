package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.limits.AccelerationRule;
import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.OutputAccounting;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.TenantStats;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The JSON of the control endpoints. Updates are partial: fields left out keep their current value;
 * unknown fields are refused so a typo does not pass silently. Durations are milliseconds
 * ({@code requestWindowMs}).
 */
final class ControlJson {

    private ControlJson() {}

    /** A control request that cannot be applied; its message names the field. */
    static final class Invalid extends RuntimeException {
        Invalid(String message) {
            super(message, null, false, false);
        }
    }

    private static final Set<String> LIMIT_FIELDS = Set.of("rpm", "inputTpm", "outputTpm", "tpm", "maxConcurrency",
            "rpd", "requestWindowMs", "outputAccounting", "cacheReadCountsAgainstInputTpm", "acceleration");
    private static final Set<String> ACCELERATION_FIELDS =
            Set.of("enabled", "factor", "floorPerSecond", "recentWindowMs", "baselineWindowMs");
    private static final Set<String> FAULT_FIELDS = Set.of("serverError", "overloaded", "connectionReset",
            "midStreamReset", "garbageBody", "truncatedStream", "streamErrorEvent", "latencySpike", "spikeDelayMs",
            "quotaExhausted", "shouldRetry");

    private static void requireKnown(JsonNode node, Set<String> known, String what) {
        if (!node.isObject()) {
            throw new Invalid(what + ": expected a JSON object");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!known.contains(field)) {
                throw new Invalid(what + "." + field + ": unknown field (expected one of " + known.stream().sorted().toList() + ")");
            }
        }
    }

    private static long longField(JsonNode node, String field, long current) {
        JsonNode v = node.get(field);
        if (v == null) {
            return current;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber()) {
            throw new Invalid(field + ": " + v + " (expected: an integer)");
        }
        return v.asLong();
    }

    private static double doubleField(JsonNode node, String field, double current) {
        JsonNode v = node.get(field);
        if (v == null) {
            return current;
        }
        if (!v.isNumber()) {
            throw new Invalid(field + ": " + v + " (expected: a number)");
        }
        return v.asDouble();
    }

    private static boolean boolField(JsonNode node, String field, boolean current) {
        JsonNode v = node.get(field);
        if (v == null) {
            return current;
        }
        if (!v.isBoolean()) {
            throw new Invalid(field + ": " + v + " (expected: true or false)");
        }
        return v.asBoolean();
    }

    private static <E extends Enum<E>> E enumField(JsonNode node, String field, E current, Class<E> type) {
        JsonNode v = node.get(field);
        if (v == null) {
            return current;
        }
        try {
            return Enum.valueOf(type, v.asText().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new Invalid(field + ": " + v + " (expected one of " + java.util.Arrays.toString(type.getEnumConstants()) + ")");
        }
    }

    static ProviderLimits limits(JsonNode node, ProviderLimits current) {
        requireKnown(node, LIMIT_FIELDS, "limits");
        try {
            AccelerationRule acceleration = current.acceleration();
            JsonNode a = node.get("acceleration");
            if (a != null) {
                requireKnown(a, ACCELERATION_FIELDS, "limits.acceleration");
                acceleration = new AccelerationRule(
                        boolField(a, "enabled", true),
                        doubleField(a, "factor", acceleration.factor()),
                        doubleField(a, "floorPerSecond", acceleration.floorPerSecond()),
                        Duration.ofMillis(longField(a, "recentWindowMs", acceleration.recentWindow().toMillis())),
                        Duration.ofMillis(longField(a, "baselineWindowMs", acceleration.baselineWindow().toMillis())));
            }
            long concurrency = longField(node, "maxConcurrency", current.maxConcurrency());
            if (concurrency > Integer.MAX_VALUE) {
                throw new Invalid("maxConcurrency: " + concurrency + " (expected: <= " + Integer.MAX_VALUE + ")");
            }
            return current.toBuilder()
                    .rpm(longField(node, "rpm", current.rpm()))
                    .inputTpm(longField(node, "inputTpm", current.inputTpm()))
                    .outputTpm(longField(node, "outputTpm", current.outputTpm()))
                    .tpm(longField(node, "tpm", current.tpm()))
                    .maxConcurrency((int) concurrency)
                    .rpd(longField(node, "rpd", current.rpd()))
                    .requestWindow(Duration.ofMillis(longField(node, "requestWindowMs", current.requestWindow().toMillis())))
                    .outputAccounting(enumField(node, "outputAccounting", current.outputAccounting(), OutputAccounting.class))
                    .cacheReadCountsAgainstInputTpm(
                            boolField(node, "cacheReadCountsAgainstInputTpm", current.cacheReadCountsAgainstInputTpm()))
                    .acceleration(acceleration)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new Invalid(e.getMessage());
        }
    }

    static ObjectNode limits(ProviderLimits l) {
        ObjectNode o = Wire.obj();
        o.put("rpm", l.rpm());
        o.put("inputTpm", l.inputTpm());
        o.put("outputTpm", l.outputTpm());
        o.put("tpm", l.tpm());
        o.put("maxConcurrency", l.maxConcurrency());
        o.put("rpd", l.rpd());
        o.put("requestWindowMs", l.requestWindow().toMillis());
        o.put("outputAccounting", l.outputAccounting().name());
        o.put("cacheReadCountsAgainstInputTpm", l.cacheReadCountsAgainstInputTpm());
        AccelerationRule a = l.acceleration();
        o.putObject("acceleration").put("enabled", a.enabled()).put("factor", a.factor())
                .put("floorPerSecond", a.floorPerSecond()).put("recentWindowMs", a.recentWindow().toMillis())
                .put("baselineWindowMs", a.baselineWindow().toMillis());
        return o;
    }

    static FaultConfig faults(JsonNode node, FaultConfig current) {
        requireKnown(node, FAULT_FIELDS, "faults");
        try {
            return current.toBuilder()
                    .serverError(doubleField(node, "serverError", current.serverError()))
                    .overloaded(doubleField(node, "overloaded", current.overloaded()))
                    .connectionReset(doubleField(node, "connectionReset", current.connectionReset()))
                    .midStreamReset(doubleField(node, "midStreamReset", current.midStreamReset()))
                    .garbageBody(doubleField(node, "garbageBody", current.garbageBody()))
                    .truncatedStream(doubleField(node, "truncatedStream", current.truncatedStream()))
                    .streamErrorEvent(doubleField(node, "streamErrorEvent", current.streamErrorEvent()))
                    .latencySpike(doubleField(node, "latencySpike", current.latencySpike()))
                    .spikeDelay(Duration.ofMillis(longField(node, "spikeDelayMs", current.spikeDelay().toMillis())))
                    .quotaExhausted(boolField(node, "quotaExhausted", current.quotaExhausted()))
                    .shouldRetry(enumField(node, "shouldRetry", current.shouldRetry(), ShouldRetry.class))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new Invalid(e.getMessage());
        }
    }

    static ObjectNode faults(FaultConfig f) {
        ObjectNode o = Wire.obj();
        o.put("serverError", f.serverError());
        o.put("overloaded", f.overloaded());
        o.put("connectionReset", f.connectionReset());
        o.put("midStreamReset", f.midStreamReset());
        o.put("garbageBody", f.garbageBody());
        o.put("truncatedStream", f.truncatedStream());
        o.put("streamErrorEvent", f.streamErrorEvent());
        o.put("latencySpike", f.latencySpike());
        o.put("spikeDelayMs", f.spikeDelay().toMillis());
        o.put("quotaExhausted", f.quotaExhausted());
        o.put("shouldRetry", f.shouldRetry().name());
        return o;
    }

    static ObjectNode stats(MockStats s) {
        ObjectNode o = Wire.obj();
        o.put("totalRequests", s.totalRequests());
        o.put("inFlight", s.inFlight());
        ObjectNode tenants = o.putObject("tenants");
        s.tenants().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            TenantStats t = e.getValue();
            ObjectNode n = tenants.putObject(e.getKey());
            n.put("accepted", t.accepted());
            ObjectNode limited = n.putObject("limited");
            for (LimitKind kind : LimitKind.values()) {
                if (t.limitedBy(kind) > 0) {
                    limited.put(kind.name(), t.limitedBy(kind));
                }
            }
            n.put("tooLarge", t.tooLarge());
            n.put("completed", t.completed());
            n.put("inputTokens", t.inputTokens());
            n.put("cacheReadTokens", t.cacheReadTokens());
            n.put("outputTokens", t.outputTokens());
        });
        ObjectNode faults = o.putObject("faults");
        s.faults().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> faults.put(e.getKey(), e.getValue()));
        var attempts = o.putArray("attempts");
        for (Attempt a : s.attempts()) {
            ObjectNode n = attempts.addObject();
            n.put("seq", a.seq());
            n.put("tenant", a.tenant());
            n.put("method", a.method());
            n.put("path", a.path());
            n.put("status", a.status());
            n.put("outcome", a.outcome());
            a.retryCount().ifPresentOrElse(v -> n.put("retryCount", v), () -> n.putNull("retryCount"));
            a.idempotencyKey().ifPresentOrElse(v -> n.put("idempotencyKey", v), () -> n.putNull("idempotencyKey"));
        }
        return o;
    }
}
