package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.Arrays;
import java.util.Optional;

/**
 * A request body forwarded as the client wrote it, with at most its top-level {@code model}
 * value replaced, instead of being serialised again from the parsed tree. Re-serialising costs
 * time linear in the body, which for long prompts is most of the gateway's own work.
 *
 * <p>Only for bodies that Jackson has already parsed as one JSON object (so the bytes are valid
 * JSON), and only when the top level is unambiguous: no key is repeated and none is written with
 * escapes. Otherwise the tree, which keeps the last of repeated keys exactly as Sluice read them,
 * is what must go upstream, since a provider might read the first instead.
 */
final class VerbatimBody {

    private static final byte[] MODEL = {'m', 'o', 'd', 'e', 'l'};

    private VerbatimBody() {}

    /**
     * The body with its top-level {@code model} string set to {@code model}; the body itself when
     * it already names that model; empty when the body must be serialised from its tree instead.
     */
    static Optional<byte[]> withModel(byte[] json, String model) {
        Scan s = scan(json);
        if (s == null || s.modelStart < 0) {
            return Optional.empty();
        }
        byte[] quoted = quoted(model);
        int oldLength = s.modelEnd - s.modelStart;
        if (oldLength == quoted.length && Arrays.equals(json, s.modelStart, s.modelEnd, quoted, 0, quoted.length)) {
            return Optional.of(json);
        }
        byte[] out = new byte[json.length - oldLength + quoted.length];
        System.arraycopy(json, 0, out, 0, s.modelStart);
        System.arraycopy(quoted, 0, out, s.modelStart, quoted.length);
        System.arraycopy(json, s.modelEnd, out, s.modelStart + quoted.length, json.length - s.modelEnd);
        return Optional.of(out);
    }

    /** The body itself when its top level is unambiguous (see the class comment), else empty. */
    static Optional<byte[]> unchanged(byte[] json) {
        return scan(json) == null ? Optional.empty() : Optional.of(json);
    }

    private static byte[] quoted(String s) {
        byte[] inner = JsonStringEncoder.getInstance().quoteAsUTF8(s);
        byte[] out = new byte[inner.length + 2];
        out[0] = '"';
        System.arraycopy(inner, 0, out, 1, inner.length);
        out[out.length - 1] = '"';
        return out;
    }

    /** Where the top-level model value lies (from its opening quote to past its closing one); -1 when absent. */
    private record Scan(int modelStart, int modelEnd) {}

    /** Null when the top level is ambiguous: a repeated or escaped key, or a non-string model. */
    private static Scan scan(byte[] json) {
        int depth = 0;
        int modelStart = -1;
        int modelEnd = -1;
        // Top-level keys seen so far, as [start, end) offsets of their text; objects rarely have more than a few.
        int[] keys = new int[16];
        int keyCount = 0;
        for (int i = 0; i < json.length; i++) {
            byte b = json[i];
            if (b == '{' || b == '[') {
                depth++;
            } else if (b == '}' || b == ']') {
                depth--;
            } else if (b == '"') {
                int close = closingQuote(json, i);
                if (close < 0) {
                    return null;
                }
                if (depth == 1) {
                    int after = skipWhitespace(json, close + 1);
                    if (after < json.length && json[after] == ':') {
                        // A key: in a valid object a string followed by a colon is one, and only one.
                        if (indexOf(json, (byte) '\\', i + 1, close) >= 0) {
                            return null;
                        }
                        for (int k = 0; k < keyCount; k += 2) {
                            if (Arrays.equals(json, keys[k], keys[k + 1], json, i + 1, close)) {
                                return null;
                            }
                        }
                        if (keyCount == keys.length) {
                            keys = Arrays.copyOf(keys, keys.length * 2);
                        }
                        keys[keyCount++] = i + 1;
                        keys[keyCount++] = close;
                        if (Arrays.equals(json, i + 1, close, MODEL, 0, MODEL.length)) {
                            int value = skipWhitespace(json, after + 1);
                            if (value >= json.length || json[value] != '"') {
                                return null;
                            }
                            int valueClose = closingQuote(json, value);
                            if (valueClose < 0) {
                                return null;
                            }
                            modelStart = value;
                            modelEnd = valueClose + 1;
                            i = valueClose;
                            continue;
                        }
                    }
                }
                i = close;
            }
        }
        return new Scan(modelStart, modelEnd);
    }

    /** The index of the quote that closes the string opened at {@code open}; -1 when it never closes. */
    private static int closingQuote(byte[] json, int open) {
        for (int i = open + 1; i < json.length; i++) {
            byte b = json[i];
            if (b == '\\') {
                i++; // the escaped character, whatever it is
            } else if (b == '"') {
                return i;
            }
        }
        return -1;
    }

    private static int skipWhitespace(byte[] json, int from) {
        int i = from;
        while (i < json.length && (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t')) {
            i++;
        }
        return i;
    }

    private static int indexOf(byte[] json, byte b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (json[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
