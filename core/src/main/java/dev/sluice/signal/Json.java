package dev.sluice.signal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A strict, bounded JSON reader for provider error bodies. Error bodies are small; anything longer
 * than {@link #MAX_LENGTH} characters or nested deeper than {@link #MAX_DEPTH} is refused rather
 * than read, so hostile input costs linear time and a fixed stack. It never throws: a body that is
 * not exactly one JSON value (truncated, NaN, trailing text) is simply empty.
 */
final class Json {

    static final int MAX_LENGTH = 64 * 1024;
    static final int MAX_DEPTH = 32;

    /** Control flow for "not JSON"; one shared, stackless instance since it carries no data. */
    private static final class Invalid extends RuntimeException {
        Invalid() {
            super(null, null, false, false);
        }
    }

    private static final Invalid INVALID = new Invalid();

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** The single JSON value of {@code text}, or empty when it is not valid and within the limits. */
    static Optional<JsonValue> parse(String text) {
        if (text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        Json reader = new Json(text);
        try {
            if (reader.peekOrEnd() == '\ufeff') {
                reader.pos++;
            }
            JsonValue value = reader.value(0);
            reader.skipWhitespace();
            return reader.pos == text.length() ? Optional.of(value) : Optional.empty();
        } catch (Invalid e) {
            return Optional.empty();
        }
    }

    private JsonValue value(int depth) {
        skipWhitespace();
        char c = peek();
        return switch (c) {
            case '{' -> object(depth + 1);
            case '[' -> array(depth + 1);
            case '"' -> new JsonValue.JString(string());
            case 't' -> literal("true", new JsonValue.JBoolean(true));
            case 'f' -> literal("false", new JsonValue.JBoolean(false));
            case 'n' -> literal("null", JsonValue.JNull.INSTANCE);
            default -> number();
        };
    }

    private JsonValue object(int depth) {
        checkDepth(depth);
        pos++;
        Map<String, JsonValue> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return new JsonValue.JObject(Collections.unmodifiableMap(members));
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw INVALID;
            }
            String key = string();
            skipWhitespace();
            expect(':');
            members.putIfAbsent(key, value(depth));
            skipWhitespace();
            char c = next();
            if (c == '}') {
                return new JsonValue.JObject(Collections.unmodifiableMap(members));
            }
            if (c != ',') {
                throw INVALID;
            }
        }
    }

    private JsonValue array(int depth) {
        checkDepth(depth);
        pos++;
        List<JsonValue> elements = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return new JsonValue.JArray(Collections.unmodifiableList(elements));
        }
        while (true) {
            elements.add(value(depth));
            skipWhitespace();
            char c = next();
            if (c == ']') {
                return new JsonValue.JArray(Collections.unmodifiableList(elements));
            }
            if (c != ',') {
                throw INVALID;
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw INVALID;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char escape = next();
            switch (escape) {
                case '"', '\\', '/' -> out.append(escape);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append((char) hex4());
                default -> throw INVALID;
            }
        }
    }

    private int hex4() {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(next(), 16);
            if (digit < 0) {
                throw INVALID;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}; NaN and Infinity are not JSON. */
    private JsonValue number() {
        int start = pos;
        if (peekOrEnd() == '-') {
            pos++;
        }
        if (peekOrEnd() == '0') {
            pos++;
        } else {
            requireDigits();
        }
        if (peekOrEnd() == '.') {
            pos++;
            requireDigits();
        }
        if (peekOrEnd() == 'e' || peekOrEnd() == 'E') {
            pos++;
            if (peekOrEnd() == '+' || peekOrEnd() == '-') {
                pos++;
            }
            requireDigits();
        }
        return new JsonValue.JNumber(Double.parseDouble(text.substring(start, pos)));
    }

    private void requireDigits() {
        int start = pos;
        while (Values.isDigit(peekOrEnd())) {
            pos++;
        }
        if (pos == start) {
            throw INVALID;
        }
    }

    private JsonValue literal(String word, JsonValue value) {
        if (!text.startsWith(word, pos)) {
            throw INVALID;
        }
        pos += word.length();
        return value;
    }

    private static void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw INVALID;
        }
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private void expect(char c) {
        if (next() != c) {
            throw INVALID;
        }
    }

    private char peek() {
        if (pos >= text.length()) {
            throw INVALID;
        }
        return text.charAt(pos);
    }

    /** The next character, or NUL at the end (NUL never starts or continues a valid token here). */
    private char peekOrEnd() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private char next() {
        char c = peek();
        pos++;
        return c;
    }
}
