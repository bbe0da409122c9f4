package dev.sluice.signal;

import java.util.List;
import java.util.Map;

/**
 * Read-only response headers with case-insensitive names. An adapter over any HTTP client's header
 * type is one lambda: {@code name -> multiMap.getAll(name)}.
 */
@FunctionalInterface
public interface Headers {

    /**
     * Every value of the named header, one element per header line, in arrival order.
     *
     * @param name the header name, matched without regard to case
     * @return the values, empty when the header is absent; never null
     */
    List<String> all(String name);

    /**
     * Whether some header's name starts with one of {@code lowerCasePrefixes}, ignoring case. Lets
     * the normaliser skip probing dozens of names on a response that carries no limit headers. This
     * default cannot list names and answers true, so nothing is ever skipped; adapters that can
     * iterate their names cheaply override it.
     *
     * @param lowerCasePrefixes name prefixes in lower case
     */
    default boolean anyNameStartsWith(List<String> lowerCasePrefixes) {
        return true;
    }

    /** Headers with no fields. */
    static Headers empty() {
        return MapHeaders.EMPTY;
    }

    /**
     * A copy of a multi-valued map. Names that differ only in case are merged; null names and null
     * values are dropped.
     */
    static Headers of(Map<String, ? extends List<String>> headers) {
        return MapHeaders.ofMulti(headers);
    }

    /** A copy of a single-valued map, with the same rules as {@link #of(Map)}. */
    static Headers ofSingle(Map<String, String> headers) {
        return MapHeaders.ofSingle(headers);
    }
}
