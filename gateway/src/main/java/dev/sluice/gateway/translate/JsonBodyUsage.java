package dev.sluice.gateway.translate;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.runtime.request.ObservedUsage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The usage of a whole JSON answer read as its bytes pass, so that the answer itself need not be
 * held: the body's structure is followed byte by byte (strings, escapes, nesting; as
 * {@link TopLevelField} does for a whole body) and only the top-level usage object
 * ({@code usage}, or {@code usageMetadata} for Gemini) is kept, the last one when it is repeated,
 * as a tree would; its counts are then read as {@link UsageExtractor#scan} reads them. Nothing of
 * the rest is kept, not even a long string's text. Not thread-safe: one answer, one event loop.
 */
public final class JsonBodyUsage {

    /** The longest usage object kept; a longer one is no provider's usage. */
    static final int MAX_USAGE_BYTES = 64 * 1024;
    private static final int MAX_KEY_BYTES = 32;

    private final WireFormat format;
    private final byte[] field;
    private int depth;
    private boolean started;
    private boolean inString;
    private boolean escaped;
    /** At the top level: the next string is a key (after '{' or ','), not a value. */
    private boolean expectKey;
    private boolean stringIsKey;
    private final byte[] key = new byte[MAX_KEY_BYTES];
    private int keyLength;
    private boolean keyTooLong;
    /** The key just read at the top level is the usage field, and its value has not begun. */
    private boolean wanted;
    private ByteArrayOutputStream capture;
    private byte[] usage;
    private String broken;

    public JsonBodyUsage(WireFormat format) {
        this.format = Objects.requireNonNull(format, "format");
        this.field = (format == WireFormat.GEMINI ? "usageMetadata" : "usage").getBytes(StandardCharsets.US_ASCII);
    }

    /** The next {@code length} bytes of the body, from {@code offset} of {@code bytes} (not kept). */
    public void feed(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        int captureFrom = capture != null ? offset : -1;
        for (int i = offset; i < offset + length && broken == null; i++) {
            byte b = bytes[i];
            if (inString) {
                if (escaped) {
                    escaped = false;
                } else if (b == '\\') {
                    escaped = true;
                } else if (b == '"') {
                    inString = false;
                    if (stringIsKey) {
                        wanted = !keyTooLong && Arrays.equals(key, 0, keyLength, field, 0, field.length);
                    }
                } else if (stringIsKey) {
                    if (keyLength < MAX_KEY_BYTES) {
                        key[keyLength++] = b;
                    } else {
                        keyTooLong = true;
                    }
                }
                continue;
            }
            if (b == ' ' || b == '\n' || b == '\r' || b == '\t') {
                continue;
            }
            if (!started) {
                started = true;
                if (b != '{') {
                    broken = "the body is not a JSON object";
                    return;
                }
                depth = 1;
                expectKey = true;
                continue;
            }
            if (depth == 0) {
                broken = "more than one JSON value";
                return;
            }
            switch (b) {
                case '"' -> {
                    inString = true;
                    stringIsKey = depth == 1 && expectKey;
                    if (stringIsKey) {
                        keyLength = 0;
                        keyTooLong = false;
                        expectKey = false;
                    } else if (depth == 1) {
                        valueBegins(false);
                    }
                }
                case '{', '[' -> {
                    if (depth == 1) {
                        if (wanted && b == '{') {
                            capture = new ByteArrayOutputStream(256);
                            captureFrom = i;
                        }
                        valueBegins(b == '{');
                    }
                    depth++;
                }
                case '}', ']' -> {
                    depth--;
                    if (depth == 1 && capture != null) {
                        capture.write(bytes, captureFrom, i + 1 - captureFrom);
                        usage = capture.toByteArray(); // a repeated key: the last one counts
                        capture = null;
                        captureFrom = -1;
                    }
                }
                case ',' -> expectKey = depth == 1;
                case ':' -> { }
                default -> {
                    if (depth == 1) {
                        valueBegins(false); // a number, true, false or null
                    }
                }
            }
        }
        if (capture != null && captureFrom >= 0) {
            capture.write(bytes, captureFrom, offset + length - captureFrom);
            if (capture.size() > MAX_USAGE_BYTES) {
                capture = null;
                broken = "the usage object is too large";
            }
        }
    }

    /** A top-level value begins; when it is the usage field's, it is an object or no usage at all. */
    private void valueBegins(boolean object) {
        if (wanted && !object) {
            usage = null; // a usage that is not an object is no usage
        }
        wanted = false;
    }

    /**
     * The body has ended: its usage, if it carried one as an object.
     *
     * @throws UpstreamFormatException when the body is not one whole JSON object
     */
    public Optional<ObservedUsage> finish() {
        if (broken == null && (!started || depth != 0 || inString)) {
            broken = started ? "the body ended before the answer was complete" : "the body is empty";
        }
        if (broken != null) {
            throw new UpstreamFormatException(broken);
        }
        if (usage == null) {
            return Optional.empty();
        }
        try (JsonParser p = Json.MAPPER.createParser(usage)) {
            p.nextToken();
            return Optional.of(UsageCounts.read(p).as(format, true));
        } catch (IOException e) {
            throw new UpstreamFormatException("the body is not JSON");
        }
    }
}
