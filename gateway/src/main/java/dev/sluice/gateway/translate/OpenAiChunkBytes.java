package dev.sluice.gateway.translate;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Optional;

/**
 * {@link OpenAiChunkScan}'s fast way: the chunk's bytes followed structurally (objects, arrays,
 * strings with their escapes, numbers, literals; UTF-8 checked), without a parser, so that an
 * event costs no parser objects (one Jackson parser per SSE event was about 13% of the gateway's
 * allocation at 5,000 streams/s, JFR). Only a top-level {@code usage} object is handed to a parser,
 * once per stream. It accepts strict JSON alone and gives up on anything else or unusual (an escape
 * in a key or in {@code type}, a nesting over {@value #MAX_DEPTH}, trailing bytes, a long number):
 * {@link OpenAiChunkScan#of} then reads the chunk with Jackson, so that every answer here is the
 * one Jackson would give. Not thread-safe; an instance per chunk.
 */
final class OpenAiChunkBytes {

    /** Deepest nesting followed; deeper chunks are left to Jackson. */
    static final int MAX_DEPTH = 64;
    private static final int MAX_NUMBER_BYTES = 100;
    private static final int MAX_KEY_BYTES = 1000;

    private static final byte[] CHOICES = bytes("choices");
    private static final byte[] USAGE = bytes("usage");
    private static final byte[] TYPE = bytes("type");
    private static final byte[] FINISH_REASON = bytes("finish_reason");
    private static final byte[] TEXT = bytes("text");
    private static final byte[] DELTA = bytes("delta");
    private static final byte[] CONTENT = bytes("content");
    private static final byte[] REFUSAL = bytes("refusal");
    private static final byte[] TOOL_CALLS = bytes("tool_calls");
    private static final byte[] FUNCTION = bytes("function");
    private static final byte[] ARGUMENTS = bytes("arguments");
    private static final byte[] RESPONSE_PREFIX = bytes("response.");

    /** Thrown, without a stack trace, to leave the chunk to Jackson. */
    private static final class GiveUp extends RuntimeException {
        GiveUp() {
            super("left to Jackson", null, false, false);
        }
    }

    private static final GiveUp GIVE_UP = new GiveUp();

    private final byte[] b;
    private final int end;
    private int i;
    private int keyFrom;
    private int keyTo;
    /** The last string read had an escape. */
    private boolean escaped;
    private int stringFrom;
    private int stringTo;

    private boolean finish;
    private long chars;
    private int usageFrom = -1;
    private int usageTo;
    private boolean noChoices;
    private boolean responsesEvent;

    private OpenAiChunkBytes(byte[] b, int offset, int length) {
        this.b = b;
        this.i = offset;
        this.end = offset + length;
    }

    /** The scan of {@code length} bytes of {@code data} from {@code offset}; empty when Jackson must read them. */
    static Optional<OpenAiChunkScan> scan(byte[] data, int offset, int length) {
        OpenAiChunkBytes s = new OpenAiChunkBytes(data, offset, length);
        try {
            s.root();
        } catch (GiveUp e) {
            return Optional.empty();
        }
        Optional<UsageCounts> usage = Optional.empty();
        if (s.usageFrom >= 0) {
            try (JsonParser p = Json.MAPPER.createParser(data, s.usageFrom, s.usageTo - s.usageFrom)) {
                p.nextToken();
                usage = Optional.of(UsageCounts.read(p));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.of(new OpenAiChunkScan(s.finish, s.chars, usage, s.noChoices, s.responsesEvent));
    }

    private void root() {
        space();
        if (at() != '{') {
            throw GIVE_UP; // Jackson reads what a non-object means (nothing) and what is not JSON
        }
        if (enter()) {
            do {
                key();
                if (isKey(CHOICES)) {
                    if (at() == '[') {
                        choices();
                    } else {
                        skip(1);
                        noChoices = false;
                    }
                } else if (isKey(USAGE)) {
                    // A repeated key: the last one counts; one that is not an object is no usage.
                    usageFrom = -1;
                    if (at() == '{') {
                        int from = i;
                        skip(1);
                        usageFrom = from;
                        usageTo = i;
                    } else {
                        skip(1);
                    }
                } else if (isKey(TYPE)) {
                    if (at() != '"') {
                        throw GIVE_UP; // rare, and the parser's reading of it is its own
                    }
                    string();
                    if (escaped) {
                        throw GIVE_UP;
                    }
                    responsesEvent = startsWith(stringFrom, stringTo, RESPONSE_PREFIX);
                } else {
                    skip(1);
                }
            } while (next());
        }
        space();
        if (i != end) {
            throw GIVE_UP; // trailing bytes: Jackson stops at the object's end, and so should its reading
        }
    }

    private void choices() {
        i++;
        space();
        int n = 0;
        if (at() == ']') {
            i++;
        } else {
            do {
                n++;
                if (at() == '{') {
                    choice();
                } else {
                    skip(2);
                }
            } while (nextElement());
        }
        noChoices = n == 0;
    }

    private void choice() {
        if (!enter()) {
            return;
        }
        do {
            key();
            if (isKey(FINISH_REASON)) {
                byte v = at();
                if (v == '{' || v == '[') {
                    throw GIVE_UP; // the parser's reading steps into such a value: its own
                }
                finish |= v == '"';
                skip(3);
            } else if (isKey(TEXT)) {
                text(3);
            } else if (isKey(DELTA) && at() == '{') {
                delta();
            } else {
                skip(3);
            }
        } while (next());
    }

    private void delta() {
        if (!enter()) {
            return;
        }
        do {
            key();
            if (isKey(CONTENT) || isKey(REFUSAL)) {
                text(4);
            } else if (isKey(TOOL_CALLS) && at() == '[') {
                i++;
                space();
                if (at() == ']') {
                    i++;
                } else {
                    do {
                        if (at() == '{') {
                            toolCall();
                        } else {
                            skip(5);
                        }
                    } while (nextElement());
                }
            } else {
                skip(4);
            }
        } while (next());
    }

    private void toolCall() {
        if (!enter()) {
            return;
        }
        do {
            key();
            if (isKey(FUNCTION) && at() == '{') {
                if (enter()) {
                    do {
                        key();
                        if (isKey(ARGUMENTS)) {
                            text(7);
                        } else {
                            skip(7);
                        }
                    } while (next());
                }
            } else {
                skip(6);
            }
        } while (next());
    }

    /** A text field's value: its code points count when it is a string. */
    private void text(int depth) {
        if (at() == '"') {
            chars += string();
        } else {
            skip(depth);
        }
    }

    /** At '{': steps in; whether a member follows (then at its key), else past the '}'. */
    private boolean enter() {
        i++;
        space();
        if (at() == '}') {
            i++;
            return false;
        }
        return true;
    }

    /** After a member's value: whether another member follows (then at its key), else past the '}'. */
    private boolean next() {
        space();
        byte c = at();
        i++;
        if (c == ',') {
            space();
            return true;
        }
        if (c == '}') {
            return false;
        }
        throw GIVE_UP;
    }

    /** After an array element: whether another follows (then at it), else past the ']'. */
    private boolean nextElement() {
        space();
        byte c = at();
        i++;
        if (c == ',') {
            space();
            return true;
        }
        if (c == ']') {
            return false;
        }
        throw GIVE_UP;
    }

    /** A member's key, its colon and the space before its value; escapes in a key are left to Jackson. */
    private void key() {
        if (at() != '"') {
            throw GIVE_UP;
        }
        string();
        if (escaped || stringTo - stringFrom > MAX_KEY_BYTES) {
            throw GIVE_UP; // a long key is one Jackson's limits may refuse
        }
        keyFrom = stringFrom;
        keyTo = stringTo;
        space();
        if (at() != ':') {
            throw GIVE_UP;
        }
        i++;
        space();
    }

    private boolean isKey(byte[] name) {
        return java.util.Arrays.equals(b, keyFrom, keyTo, name, 0, name.length);
    }

    private boolean startsWith(int from, int to, byte[] prefix) {
        return to - from >= prefix.length && java.util.Arrays.equals(b, from, from + prefix.length, prefix, 0, prefix.length);
    }

    /** Any value at nesting {@code depth}, skipped. */
    private void skip(int depth) {
        if (depth > MAX_DEPTH) {
            throw GIVE_UP;
        }
        switch (at()) {
            case '{' -> {
                if (enter()) {
                    do {
                        key();
                        skip(depth + 1);
                    } while (next());
                }
            }
            case '[' -> {
                i++;
                space();
                if (at() == ']') {
                    i++;
                } else {
                    do {
                        skip(depth + 1);
                    } while (nextElement());
                }
            }
            case '"' -> string();
            case 't' -> literal('t', 'r', 'u', 'e');
            case 'f' -> {
                literal('f', 'a', 'l', 's');
                if (at() != 'e') {
                    throw GIVE_UP;
                }
                i++;
            }
            case 'n' -> literal('n', 'u', 'l', 'l');
            default -> number();
        }
    }

    private void literal(char c0, char c1, char c2, char c3) {
        if (end - i < 4 || b[i] != c0 || b[i + 1] != c1 || b[i + 2] != c2 || b[i + 3] != c3) {
            throw GIVE_UP;
        }
        i += 4;
    }

    /** A number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
    private void number() {
        int from = i;
        if (i < end && b[i] == '-') {
            i++;
        }
        if (i < end && b[i] == '0') {
            i++;
        } else {
            digits();
        }
        if (i < end && b[i] == '.') {
            i++;
            digits();
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            digits();
        }
        if (i - from > MAX_NUMBER_BYTES) {
            throw GIVE_UP;
        }
    }

    private void digits() {
        int from = i;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        if (i == from) {
            throw GIVE_UP;
        }
    }

    /**
     * At '"': reads the string to past its closing quote and returns its code points as the
     * decoded text counts them ({@link Character#codePointCount}): a UTF-8 sequence is one, an
     * escape one, except that an escaped low surrogate right after an escaped high one makes a
     * pair with it.
     */
    private long string() {
        i++;
        stringFrom = i;
        escaped = false;
        long n = 0;
        boolean highEscaped = false;
        while (true) {
            if (i >= end) {
                throw GIVE_UP;
            }
            int c = b[i] & 0xFF;
            if (c == '"') {
                stringTo = i;
                i++;
                return n;
            }
            if (c == '\\') {
                escaped = true;
                if (i + 1 >= end) {
                    throw GIVE_UP;
                }
                byte e = b[i + 1];
                if (e == 'u') {
                    if (end - i < 6) {
                        throw GIVE_UP;
                    }
                    int unit = hex(b[i + 2]) << 12 | hex(b[i + 3]) << 8 | hex(b[i + 4]) << 4 | hex(b[i + 5]);
                    i += 6;
                    if (Character.isLowSurrogate((char) unit) && highEscaped) {
                        highEscaped = false; // the second half of a pair
                    } else {
                        n++;
                        highEscaped = Character.isHighSurrogate((char) unit);
                    }
                    continue;
                }
                if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
                    throw GIVE_UP;
                }
                i += 2;
            } else if (c < 0x20) {
                throw GIVE_UP; // a control character must be escaped
            } else if (c < 0x80) {
                i++;
            } else {
                i += utf8(c);
            }
            n++;
            highEscaped = false;
        }
    }

    /** The length of the well-formed UTF-8 sequence whose lead byte {@code c} is at {@code i}. */
    private int utf8(int c) {
        int len;
        int lo = 0x80;
        int hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) {
                lo = 0xA0;
            } else if (c == 0xED) {
                hi = 0x9F; // no surrogates
            }
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) {
                lo = 0x90;
            } else if (c == 0xF4) {
                hi = 0x8F;
            }
        } else {
            throw GIVE_UP;
        }
        if (end - i < len) {
            throw GIVE_UP;
        }
        int second = b[i + 1] & 0xFF;
        if (second < lo || second > hi) {
            throw GIVE_UP;
        }
        for (int k = 2; k < len; k++) {
            int cont = b[i + k] & 0xFF;
            if (cont < 0x80 || cont > 0xBF) {
                throw GIVE_UP;
            }
        }
        return len;
    }

    private static int hex(byte h) {
        if (h >= '0' && h <= '9') {
            return h - '0';
        }
        if (h >= 'a' && h <= 'f') {
            return h - 'a' + 10;
        }
        if (h >= 'A' && h <= 'F') {
            return h - 'A' + 10;
        }
        throw GIVE_UP;
    }

    private void space() {
        while (i < end && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
            i++;
        }
    }

    private byte at() {
        if (i >= end) {
            throw GIVE_UP;
        }
        return b[i];
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
