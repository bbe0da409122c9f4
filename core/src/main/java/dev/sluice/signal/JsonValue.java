package dev.sluice.signal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed JSON value with total navigation: {@code get} and {@code items} on the wrong type yield
 * {@link JNull} or an empty list, so reading a provider error body never needs a null check.
 */
sealed interface JsonValue {

    /** The member named {@code key} of an object; {@link JNull#INSTANCE} for anything else. */
    default JsonValue get(String key) {
        return this instanceof JObject object ? object.members().getOrDefault(key, JNull.INSTANCE) : JNull.INSTANCE;
    }

    /** The elements of an array; empty for anything else. */
    default List<JsonValue> items() {
        return this instanceof JArray array ? array.elements() : List.of();
    }

    /** The text of a string. */
    default Optional<String> string() {
        return this instanceof JString text ? Optional.of(text.value()) : Optional.empty();
    }

    /** The text of a string, or the digits of a finite whole number ({@code 429} reads as "429"). */
    default Optional<String> scalarText() {
        if (this instanceof JNumber number && Double.isFinite(number.value())
                && number.value() == Math.rint(number.value()) && Math.abs(number.value()) < 1e15) {
            return Optional.of(Long.toString((long) number.value()));
        }
        return string();
    }

    /** A JSON object; members keep their first occurrence when a key repeats. */
    record JObject(Map<String, JsonValue> members) implements JsonValue {}

    /** A JSON array. */
    record JArray(List<JsonValue> elements) implements JsonValue {}

    /** A JSON string. */
    record JString(String value) implements JsonValue {}

    /** A JSON number; may be infinite when the literal overflows a double. */
    record JNumber(double value) implements JsonValue {}

    /** {@code true} or {@code false}. */
    record JBoolean(boolean value) implements JsonValue {}

    /** {@code null}, and the answer to navigating into something that is not there. */
    enum JNull implements JsonValue {
        INSTANCE
    }
}
