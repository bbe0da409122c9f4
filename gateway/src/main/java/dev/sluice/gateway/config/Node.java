package dev.sluice.gateway.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node of the parsed YAML tree together with its dotted path, so every read can fail with the
 * exact place in the user's file. Absent nodes are represented by a null {@link #json}.
 */
final class Node {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

    final JsonNode json;
    final String path;

    Node(JsonNode json, String path) {
        this.json = json == null || json.isMissingNode() || json.isNull() ? null : json;
        this.path = path;
    }

    boolean present() {
        return json != null;
    }

    Node get(String key) {
        return new Node(json == null ? null : json.get(key), path.isEmpty() ? key : path + "." + key);
    }

    /** Fails on any key not in {@code allowed}; requires a mapping when present. */
    Node allowOnly(Set<String> allowed) {
        if (json == null) {
            return this;
        }
        requireObject();
        Iterator<String> names = json.fieldNames();
        while (names.hasNext()) {
            String n = names.next();
            if (!allowed.contains(n)) {
                throw new ConfigException(path.isEmpty() ? n : path + "." + n,
                        "one of " + new java.util.TreeSet<>(allowed), "an unknown key");
            }
        }
        return this;
    }

    /** Entries of a mapping in file order; empty when absent. */
    Map<String, Node> entries() {
        Map<String, Node> out = new LinkedHashMap<>();
        if (json == null) {
            return out;
        }
        requireObject();
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            out.put(e.getKey(), new Node(e.getValue(), child(e.getKey())));
        }
        return out;
    }

    java.util.List<Node> items() {
        java.util.List<Node> out = new java.util.ArrayList<>();
        if (json == null) {
            return out;
        }
        if (!json.isArray()) {
            throw new ConfigException(path, "a list", describe());
        }
        for (int i = 0; i < json.size(); i++) {
            out.add(new Node(json.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    private String child(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    void requireObject() {
        if (json != null && !json.isObject()) {
            throw new ConfigException(path, "a mapping", describe());
        }
    }

    String text() {
        Optional<String> t = optText();
        return t.orElseThrow(() -> new ConfigException(path, "a value", "nothing"));
    }

    Optional<String> optText() {
        if (json == null) {
            return Optional.empty();
        }
        if (!json.isValueNode()) {
            throw new ConfigException(path, "a single value", describe());
        }
        String s = json.asText().strip();
        if (s.isEmpty()) {
            throw new ConfigException(path, "a non-empty value", "an empty string");
        }
        return Optional.of(s);
    }

    String text(String fallback) {
        return optText().orElse(fallback);
    }

    long longValue(long fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isIntegralNumber() || !json.canConvertToLong()) {
            throw new ConfigException(path, "a whole number", describe());
        }
        return json.asLong();
    }

    long requiredLong() {
        if (json == null) {
            throw new ConfigException(path, "a whole number", "nothing");
        }
        return longValue(0);
    }

    int intValue(int fallback) {
        long v = longValue(fallback);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ConfigException(path, "a whole number that fits 32 bits", v);
        }
        return (int) v;
    }

    double doubleValue(double fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isNumber()) {
            throw new ConfigException(path, "a number", describe());
        }
        return json.asDouble();
    }

    boolean bool(boolean fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isBoolean()) {
            throw new ConfigException(path, "true or false", describe());
        }
        return json.asBoolean();
    }

    Duration duration(Duration fallback) {
        return optDuration().orElse(fallback);
    }

    Optional<Duration> optDuration() {
        if (json == null) {
            return Optional.empty();
        }
        String s = json.isValueNode() ? json.asText().strip() : describe();
        Matcher m = DURATION.matcher(s);
        if (!json.isTextual() || !m.matches()) {
            throw new ConfigException(path, "a duration such as 300ms, 2s, 20m, 1h, 1d", json.isValueNode()
                    ? quote(s) : s);
        }
        return Optional.of(parseDuration(m));
    }

    private static Duration parseDuration(Matcher m) {
        java.math.BigDecimal amount = new java.math.BigDecimal(m.group(1));
        long unitNanos = switch (m.group(2)) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 86_400_000_000_000L;
        };
        return Duration.ofNanos(amount.multiply(java.math.BigDecimal.valueOf(unitNanos)).longValue());
    }

    /** A short description of what was found, for error messages (never the value of a secret). */
    String describe() {
        if (json == null) {
            return "nothing";
        }
        if (json.isObject()) {
            return "a mapping";
        }
        if (json.isArray()) {
            return "a list";
        }
        if (json.isTextual()) {
            return quote(json.asText());
        }
        return json.asText();
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
