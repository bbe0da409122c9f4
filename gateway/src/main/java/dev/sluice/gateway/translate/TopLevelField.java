package dev.sluice.gateway.translate;

import java.util.Arrays;

/**
 * Where one top-level field's value lies in the bytes of a JSON object, found by following only
 * the structure: strings, nesting and the keys of the outermost object. Reading a whole answer
 * token by token to reach its {@code usage} costs a parser and every token of the text before
 * it; this pass costs a look at each byte.
 *
 * <p>It answers only when the outcome is plain: the body is one object whose brackets match,
 * whose strings close, with nothing but JSON's own characters between them, and whose top-level
 * keys carry no escapes (an escaped key may spell the one sought). Anything else is
 * {@link #UNDECIDED}, for a real parser to judge. A body with the shape of JSON but not its
 * grammar ({@code {"a":tru}}) can still pass; its usage is whatever its usage object says, and it
 * reaches the client as the provider sent it.
 */
final class TopLevelField {

    /** The body needs a real parser: not one plain object, or not JSON. */
    static final long UNDECIDED = -2;
    /** The object has no such top-level field. */
    static final long ABSENT = -1;

    /** Deeper nesting than a long's bits can track is left to the parser. */
    private static final int MAX_DEPTH = 63;

    private TopLevelField() {}

    /**
     * The value of the last top-level field named {@code name} (as in a parsed tree, the last of
     * repeated keys counts), packed as {@code start << 32 | end} (offsets into {@code json}, end
     * exclusive, without surrounding whitespace); or {@link #ABSENT} or {@link #UNDECIDED}.
     */
    static long find(byte[] json, byte[] name) {
        int i = skipWhitespace(json, 0);
        if (i >= json.length || json[i] != '{') {
            return UNDECIDED;
        }
        long objects = 0; // bit d set: the container at depth d + 1 is an object
        int depth = 0;
        long found = ABSENT;
        int valueStart = -1;
        for (; i < json.length; i++) {
            byte b = json[i];
            switch (b) {
                case '{', '[' -> {
                    if (depth == MAX_DEPTH) {
                        return UNDECIDED;
                    }
                    objects = b == '{' ? objects | (1L << depth) : objects & ~(1L << depth);
                    depth++;
                }
                case '}', ']' -> {
                    if (depth == 0 || ((objects >>> (depth - 1) & 1) == 1) != (b == '}')) {
                        return UNDECIDED;
                    }
                    if (depth == 1) {
                        if (valueStart >= 0) {
                            found = pack(json, valueStart, i);
                        }
                        return skipWhitespace(json, i + 1) == json.length ? found : UNDECIDED;
                    }
                    depth--;
                }
                case ',' -> {
                    if (depth == 1 && valueStart >= 0) {
                        found = pack(json, valueStart, i);
                        valueStart = -1;
                    }
                }
                case '"' -> {
                    int close = closingQuote(json, i);
                    if (close < 0) {
                        return UNDECIDED;
                    }
                    if (depth == 1) {
                        int after = skipWhitespace(json, close + 1);
                        if (after < json.length && json[after] == ':') {
                            if (hasEscape(json, i + 1, close)) {
                                return UNDECIDED;
                            }
                            if (Arrays.equals(json, i + 1, close, name, 0, name.length)) {
                                valueStart = skipWhitespace(json, after + 1);
                            }
                            i = after;
                            continue;
                        }
                    }
                    i = close;
                }
                case ' ', '\t', '\n', '\r', ':', '-', '+', '.',
                        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
                        'a', 'e', 'f', 'l', 'n', 'r', 's', 't', 'u', 'E' -> {
                    // numbers, true, false, null and the punctuation between values
                }
                default -> {
                    return UNDECIDED;
                }
            }
        }
        return UNDECIDED; // the object never closed
    }

    /** The start offset of a packed slice. */
    static int start(long slice) {
        return (int) (slice >>> 32);
    }

    /** The end offset (exclusive) of a packed slice. */
    static int end(long slice) {
        return (int) slice;
    }

    private static long pack(byte[] json, int start, int end) {
        int e = end;
        while (e > start && isWhitespace(json[e - 1])) {
            e--;
        }
        return (long) start << 32 | e;
    }

    private static int closingQuote(byte[] json, int open) {
        for (int i = open + 1; i < json.length; i++) {
            byte b = json[i];
            if (b == '\\') {
                i++;
            } else if (b == '"') {
                return i;
            }
        }
        return -1;
    }

    private static boolean hasEscape(byte[] json, int from, int to) {
        for (int i = from; i < to; i++) {
            if (json[i] == '\\') {
                return true;
            }
        }
        return false;
    }

    private static int skipWhitespace(byte[] json, int from) {
        int i = from;
        while (i < json.length && isWhitespace(json[i])) {
            i++;
        }
        return i;
    }

    private static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }
}
