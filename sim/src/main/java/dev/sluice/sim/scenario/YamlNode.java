package dev.sluice.sim.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A node of a scenario file with its dotted path, so every bad value is reported where it is. */
final class YamlNode {

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
    private static final Pattern RATE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|m|h)\\s*");

    final JsonNode json;
    final String path;

    YamlNode(JsonNode json, String path) {
        this.json = json == null || json.isMissingNode() || json.isNull() ? null : json;
        this.path = path;
    }

    boolean present() {
        return json != null;
    }

    YamlNode get(String key) {
        return new YamlNode(json == null ? null : json.get(key), path.isEmpty() ? key : path + "." + key);
    }

    YamlNode allowOnly(Set<String> allowed) {
        if (json == null) {
            return this;
        }
        requireObject();
        for (Map.Entry<String, JsonNode> e : json.properties()) {
            String n = e.getKey();
            if (!allowed.contains(n)) {
                throw new ConfigException(child(n), "one of " + new TreeSet<>(allowed), "an unknown key");
            }
        }
        return this;
    }

    private String child(String n) {
        return path.isEmpty() ? n : path + "." + n;
    }

    private void requireObject() {
        if (json != null && !json.isObject()) {
            throw new ConfigException(path, "a mapping", json.getNodeType().name().toLowerCase(Locale.ROOT));
        }
    }

    Map<String, YamlNode> entries() {
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

    List<YamlNode> items() {
        List<YamlNode> out = new ArrayList<>();
        if (json == null) {
            return out;
        }
        if (!json.isArray()) {
            throw new ConfigException(path, "a list", json.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        for (int i = 0; i < json.size(); i++) {
            out.add(new YamlNode(json.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    YamlNode required() {
        if (json == null) {
            throw new ConfigException(path, "a value", "nothing");
        }
        return this;
    }

    String text() {
        required();
        if (!json.isValueNode()) {
            throw new ConfigException(path, "a scalar", json.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return json.asText();
    }

    String text(String fallback) {
        return present() ? text() : fallback;
    }

    Optional<String> optionalText() {
        return present() ? Optional.of(text()) : Optional.empty();
    }

    double number() {
        required();
        if (json.isNumber()) {
            return json.asDouble();
        }
        try {
            return Double.parseDouble(json.asText().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(path, "a number", json.asText());
        }
    }

    double number(double fallback) {
        return present() ? number() : fallback;
    }

    long wholeNumber(long fallback) {
        if (!present()) {
            return fallback;
        }
        double v = number();
        if (v != Math.rint(v)) {
            throw new ConfigException(path, "a whole number", v);
        }
        return (long) v;
    }

    boolean bool(boolean fallback) {
        if (!present()) {
            return fallback;
        }
        if (json.isBoolean()) {
            return json.asBoolean();
        }
        throw new ConfigException(path, "true or false", json.asText());
    }

    /** A duration such as {@code 300ms}, {@code 2s}, {@code 20m}, {@code 1h}, or {@code 1m30s}. */
    Duration duration() {
        return parseDuration(path, text());
    }

    Duration duration(Duration fallback) {
        return present() ? duration() : fallback;
    }

    static Duration parseDuration(String path, String raw) {
        String s = raw.trim();
        Matcher m = DURATION.matcher(s);
        long nanos = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            double v = Double.parseDouble(m.group(1));
            long unit = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos += Math.round(v * unit);
            end = m.end();
        }
        if (end == 0 || end != s.length()) {
            throw new ConfigException(path, "a duration such as 300ms, 2s, 20m or 1h", raw);
        }
        return Duration.ofNanos(nanos);
    }

    /** A rate: {@code 5/s}, {@code 300/m}, {@code 60/h}, or a bare number per second. Returns per second. */
    double ratePerSecond() {
        required();
        if (json.isNumber()) {
            return checkRate(json.asDouble());
        }
        Matcher m = RATE.matcher(json.asText());
        if (!m.matches()) {
            throw new ConfigException(path, "a rate such as 5/s, 300/m or 60/h", json.asText());
        }
        double v = Double.parseDouble(m.group(1));
        double perSecond = switch (m.group(2)) {
            case "s" -> v;
            case "m" -> v / 60;
            default -> v / 3600;
        };
        return checkRate(perSecond);
    }

    private double checkRate(double v) {
        ConfigException.require(v >= 0 && Double.isFinite(v), path, ">= 0", v);
        return v;
    }
}
