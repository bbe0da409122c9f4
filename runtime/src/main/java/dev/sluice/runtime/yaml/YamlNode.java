package dev.sluice.runtime.yaml;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.config.ConfigException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node of a parsed YAML (or JSON) tree together with its dotted path, so every read can fail
 * with the exact place in the user's file: the one reader of configuration files, scenario files
 * and admin API bodies. An absent node is not an error until a value is required of it.
 */
public final class YamlNode {

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    private static final Pattern RATE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|m|h)\\s*");

    private final JsonNode json;
    private final String path;

    private YamlNode(JsonNode json, String path) {
        this.json = json == null || json.isMissingNode() || json.isNull() ? null : json;
        this.path = path;
    }

    /** The top of a document; its path is empty. */
    public static YamlNode root(JsonNode json) {
        return new YamlNode(json, "");
    }

    /** The dotted path of this node, {@code ""} at the top. */
    public String path() {
        return path;
    }

    /** The tree below this node; empty when absent. */
    public Optional<JsonNode> json() {
        return Optional.ofNullable(json);
    }

    public boolean present() {
        return json != null;
    }

    /** Whether this node is present and a mapping. */
    public boolean isMapping() {
        return json != null && json.isObject();
    }

    /** The child {@code key}, present or not. */
    public YamlNode get(String key) {
        return new YamlNode(json == null ? null : json.get(key), child(key));
    }

    /** Fails on any key not in {@code allowed}; requires a mapping when present. */
    public YamlNode allowOnly(Set<String> allowed) {
        if (json == null) {
            return this;
        }
        requireObject();
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            if (!allowed.contains(e.getKey())) {
                throw new ConfigException(child(e.getKey()), "one of " + new TreeSet<>(allowed), "an unknown key");
            }
        }
        return this;
    }

    /** Entries of a mapping in file order; empty when absent. */
    public Map<String, YamlNode> entries() {
        Map<String, YamlNode> out = new LinkedHashMap<>();
        if (json == null) {
            return out;
        }
        requireObject();
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            out.put(e.getKey(), new YamlNode(e.getValue(), child(e.getKey())));
        }
        return out;
    }

    /** Items of a list in order; empty when absent. */
    public List<YamlNode> items() {
        List<YamlNode> out = new ArrayList<>();
        if (json == null) {
            return out;
        }
        if (!json.isArray()) {
            throw new ConfigException(path, "a list", describe());
        }
        for (int i = 0; i < json.size(); i++) {
            out.add(new YamlNode(json.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    /** This node, or a failure saying a value is missing here. */
    public YamlNode required() {
        if (json == null) {
            throw new ConfigException(path, "a value", "nothing");
        }
        return this;
    }

    /** Fails unless this node is absent or a mapping. */
    public void requireObject() {
        if (json != null && !json.isObject()) {
            throw new ConfigException(path, "a mapping", describe());
        }
    }

    /** A required non-empty scalar, stripped. */
    public String text() {
        return optText().orElseThrow(() -> new ConfigException(path, "a value", "nothing"));
    }

    public String text(String fallback) {
        return optText().orElse(fallback);
    }

    /** A non-empty scalar, stripped; empty when absent. */
    public Optional<String> optText() {
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

    /** A whole number that fits 64 bits. */
    public long longValue(long fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isIntegralNumber() || !json.canConvertToLong()) {
            throw new ConfigException(path, "a whole number", describe());
        }
        return json.asLong();
    }

    public long requiredLong() {
        required();
        return longValue(0);
    }

    /** A whole number that fits 32 bits. */
    public int intValue(int fallback) {
        long v = longValue(fallback);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ConfigException(path, "a whole number that fits 32 bits", v);
        }
        return (int) v;
    }

    /** A finite number. */
    public double doubleValue(double fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isNumber() || !Double.isFinite(json.asDouble())) {
            throw new ConfigException(path, "a number", describe());
        }
        return json.asDouble();
    }

    public double requiredDouble() {
        required();
        return doubleValue(0);
    }

    public boolean bool(boolean fallback) {
        if (json == null) {
            return fallback;
        }
        if (!json.isBoolean()) {
            throw new ConfigException(path, "true or false", describe());
        }
        return json.asBoolean();
    }

    public Duration duration(Duration fallback) {
        return optDuration().orElse(fallback);
    }

    public Duration requiredDuration() {
        required();
        return optDuration().orElseThrow();
    }

    /** A duration such as {@code 300ms}, {@code 2s}, {@code 20m}, {@code 1h}, {@code 1d} or {@code 1m30s}. */
    public Optional<Duration> optDuration() {
        if (json == null) {
            return Optional.empty();
        }
        if (!json.isTextual()) {
            throw new ConfigException(path, "a duration such as 300ms, 2s, 20m, 1h, 1d", describe());
        }
        return Optional.of(parseDuration(path, json.asText()));
    }

    /** Parses a duration written as in configuration files; {@code path} names it in the failure. */
    public static Duration parseDuration(String path, String raw) {
        String s = raw.strip();
        Matcher m = DURATION_PART.matcher(s);
        BigDecimal nanos = BigDecimal.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long unitNanos = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> 86_400_000_000_000L;
            };
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos)));
            end = m.end();
        }
        if (end == 0 || end != s.length() || nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new ConfigException(path, "a duration such as 300ms, 2s, 20m, 1h, 1d", quote(s));
        }
        return Duration.ofNanos(nanos.longValue());
    }

    /** A rate: {@code 5/s}, {@code 300/m}, {@code 60/h}, or a bare number per second. Returns per second. */
    public double ratePerSecond() {
        required();
        double perSecond;
        if (json.isNumber()) {
            perSecond = json.asDouble();
        } else {
            Matcher m = RATE.matcher(json.asText());
            if (!json.isTextual() || !m.matches()) {
                throw new ConfigException(path, "a rate such as 5/s, 300/m or 60/h", describe());
            }
            double v = Double.parseDouble(m.group(1));
            perSecond = switch (m.group(2)) {
                case "s" -> v;
                case "m" -> v / 60;
                default -> v / 3600;
            };
        }
        ConfigException.require(perSecond >= 0 && Double.isFinite(perSecond), path, ">= 0", perSecond);
        return perSecond;
    }

    /** A short description of what was found, for error messages (never the value of a secret). */
    public String describe() {
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

    private String child(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
