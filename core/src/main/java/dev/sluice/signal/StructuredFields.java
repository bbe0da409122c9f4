package dev.sluice.signal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The part of RFC 9651 Structured Field Values the IETF RateLimit fields use: a List of Items,
 * each a bare item with parameters. Inner lists, dates and display strings are not needed there
 * and make the field fail to parse; per RFC 9651 a field that fails to parse is ignored whole.
 */
final class StructuredFields {

    /** Longer fields are refused before parsing; a few dozen policies fit comfortably. */
    static final int MAX_LENGTH = 8192;

    /** A bare item. */
    sealed interface Bare {}

    /** An Integer: at most 15 digits, optionally negative. */
    record SfInteger(long value) implements Bare {}

    /** A Decimal: at most 12 integer and 3 fractional digits. */
    record SfDecimal(double value) implements Bare {}

    /** A String: printable ASCII, with {@code \"} and {@code \\} escapes resolved. */
    record SfString(String value) implements Bare {}

    /** A Token such as {@code foo/bar:baz}. */
    record SfToken(String value) implements Bare {}

    /** A Byte Sequence, kept as its base64 text since nothing here decodes it. */
    record SfBytes(String base64) implements Bare {}

    /** A Boolean, {@code ?1} or {@code ?0}. */
    record SfBoolean(boolean value) implements Bare {}

    /** A list member: a bare item and its parameters (a parameter without a value is true). */
    record Item(Bare value, Map<String, Bare> params) {}

    private static final class Invalid extends RuntimeException {
        Invalid() {
            super(null, null, false, false);
        }
    }

    private static final Invalid INVALID = new Invalid();
    private static final String TCHAR_EXTRA = "!#$%&'*+-.^_`|~:/";

    private final String text;
    private int pos;

    private StructuredFields(String text) {
        this.text = text;
    }

    /** The list members of a field value, or empty when it does not parse. */
    static Optional<List<Item>> parseList(String field) {
        String s = stripSpaces(field);
        if (s.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        StructuredFields parser = new StructuredFields(s);
        try {
            return Optional.of(parser.list());
        } catch (Invalid e) {
            return Optional.empty();
        }
    }

    private List<Item> list() {
        List<Item> members = new ArrayList<>();
        while (pos < text.length()) {
            members.add(item());
            skipOptionalWhitespace();
            if (pos == text.length()) {
                break;
            }
            if (text.charAt(pos++) != ',') {
                throw INVALID;
            }
            skipOptionalWhitespace();
            if (pos == text.length()) {
                throw INVALID;
            }
        }
        return Collections.unmodifiableList(members);
    }

    private Item item() {
        Bare value = bareItem();
        Map<String, Bare> params = new LinkedHashMap<>();
        while (pos < text.length() && text.charAt(pos) == ';') {
            pos++;
            while (pos < text.length() && text.charAt(pos) == ' ') {
                pos++;
            }
            String key = key();
            Bare paramValue = new SfBoolean(true);
            if (pos < text.length() && text.charAt(pos) == '=') {
                pos++;
                paramValue = bareItem();
            }
            params.put(key, paramValue);
        }
        return new Item(value, Collections.unmodifiableMap(params));
    }

    private Bare bareItem() {
        if (pos >= text.length()) {
            throw INVALID;
        }
        char c = text.charAt(pos);
        if (c == '-' || Values.isDigit(c)) {
            return number();
        }
        if (c == '"') {
            return string();
        }
        if (c == ':') {
            return bytes();
        }
        if (c == '?') {
            return bool();
        }
        if (isAlpha(c) || c == '*') {
            return token();
        }
        throw INVALID;
    }

    private Bare number() {
        boolean negative = text.charAt(pos) == '-';
        if (negative) {
            pos++;
        }
        int start = pos;
        while (pos < text.length() && Values.isDigit(text.charAt(pos))) {
            pos++;
        }
        int integerDigits = pos - start;
        if (integerDigits == 0) {
            throw INVALID;
        }
        if (pos < text.length() && text.charAt(pos) == '.') {
            int dot = pos++;
            while (pos < text.length() && Values.isDigit(text.charAt(pos))) {
                pos++;
            }
            int fractionDigits = pos - dot - 1;
            if (integerDigits > 12 || fractionDigits < 1 || fractionDigits > 3) {
                throw INVALID;
            }
            double value = Double.parseDouble(text.substring(start, pos));
            return new SfDecimal(negative ? -value : value);
        }
        if (integerDigits > 15) {
            throw INVALID;
        }
        long value = Long.parseLong(text.substring(start, pos));
        return new SfInteger(negative ? -value : value);
    }

    private Bare string() {
        pos++;
        StringBuilder out = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return new SfString(out.toString());
            }
            if (c == '\\') {
                if (pos >= text.length()) {
                    throw INVALID;
                }
                c = text.charAt(pos++);
                if (c != '"' && c != '\\') {
                    throw INVALID;
                }
            } else if (c < 0x20 || c > 0x7e) {
                throw INVALID;
            }
            out.append(c);
        }
        throw INVALID;
    }

    private Bare bytes() {
        int start = ++pos;
        while (pos < text.length() && text.charAt(pos) != ':') {
            char c = text.charAt(pos++);
            if (!isAlpha(c) && !Values.isDigit(c) && c != '+' && c != '/' && c != '=') {
                throw INVALID;
            }
        }
        if (pos >= text.length()) {
            throw INVALID;
        }
        return new SfBytes(text.substring(start, pos++));
    }

    private Bare bool() {
        if (pos + 1 >= text.length()) {
            throw INVALID;
        }
        char c = text.charAt(pos + 1);
        pos += 2;
        return switch (c) {
            case '1' -> new SfBoolean(true);
            case '0' -> new SfBoolean(false);
            default -> throw INVALID;
        };
    }

    private Bare token() {
        int start = pos++;
        while (pos < text.length() && isTokenChar(text.charAt(pos))) {
            pos++;
        }
        return new SfToken(text.substring(start, pos));
    }

    private String key() {
        int start = pos;
        if (pos >= text.length() || !(isLowerAlpha(text.charAt(pos)) || text.charAt(pos) == '*')) {
            throw INVALID;
        }
        pos++;
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (!isLowerAlpha(c) && !Values.isDigit(c) && "_-.*".indexOf(c) < 0) {
                break;
            }
            pos++;
        }
        return text.substring(start, pos);
    }

    private void skipOptionalWhitespace() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
            pos++;
        }
    }

    private static String stripSpaces(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && s.charAt(from) == ' ') {
            from++;
        }
        while (to > from && s.charAt(to - 1) == ' ') {
            to--;
        }
        return s.substring(from, to);
    }

    private static boolean isTokenChar(char c) {
        return isAlpha(c) || Values.isDigit(c) || TCHAR_EXTRA.indexOf(c) >= 0;
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isLowerAlpha(char c) {
        return c >= 'a' && c <= 'z';
    }
}
