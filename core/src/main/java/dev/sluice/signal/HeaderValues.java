package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Bounded, counted access to untrusted response headers: at most {@link #MAX_LINES} lines per
 * name are looked at, over-long values are dropped, and every dropped or unparseable value is
 * counted as malformed.
 */
final class HeaderValues {

    /** Scalar headers (numbers, durations, dates) are short; a longer value is hostile. */
    static final int MAX_SCALAR_LENGTH = 256;
    /** More lines than this for one header name are not read. */
    static final int MAX_LINES = 16;

    private final Headers headers;
    private final Malformed malformed;

    HeaderValues(Headers headers, Malformed malformed) {
        this.headers = headers;
        this.malformed = malformed;
    }

    Malformed malformed() {
        return malformed;
    }

    /** Trimmed values of one header, at most {@code maxLength} characters each. */
    List<String> all(String name, int maxLength) {
        List<String> lines = headers.all(name);
        if (lines == null || lines.isEmpty()) {
            return List.of();
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (i >= MAX_LINES) {
                malformed.add();
                break;
            }
            if (line == null) {
                continue;
            }
            if (line.length() > maxLength) {
                malformed.add();
                continue;
            }
            values.add(line.strip());
        }
        return values;
    }

    /** The first scalar value of a header. */
    Optional<String> first(String name) {
        List<String> values = all(name, MAX_SCALAR_LENGTH);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /** All lines of a list-valued header joined as one field value, as RFC 9110 §5.3 allows. */
    Optional<String> joined(String name, int maxLength) {
        List<String> values = all(name, maxLength);
        if (values.isEmpty()) {
            return Optional.empty();
        }
        String joined = String.join(", ", values);
        if (joined.length() > maxLength) {
            malformed.add();
            return Optional.empty();
        }
        return Optional.of(joined);
    }

    /**
     * A non-negative count such as a limit or remaining value. Azure's {@code -1} means "unknown"
     * and is not malformed; every other non-count is.
     */
    OptionalLong count(String name) {
        Optional<String> value = first(name);
        if (value.isEmpty() || value.get().equals("-1")) {
            return OptionalLong.empty();
        }
        OptionalLong parsed = Values.nonNegativeInteger(value.get());
        if (parsed.isEmpty()) {
            malformed.add();
        }
        return parsed;
    }

    /** An observation reset must fit the 24 h cap; a longer one is not believed. */
    OptionalLong boundedReset(OptionalLong millis) {
        if (millis.isPresent() && millis.getAsLong() > ProviderSignal.MAX_DELAY_MILLIS) {
            malformed.add();
            return OptionalLong.empty();
        }
        return millis;
    }

    /** Counts an unparseable value and returns empty, for one-line rejections. */
    OptionalLong reject() {
        malformed.add();
        return OptionalLong.empty();
    }
}
