package dev.sluice.signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The map-backed {@link Headers}: an immutable copy keyed case-insensitively. */
final class MapHeaders implements Headers {

    static final MapHeaders EMPTY = new MapHeaders(new TreeMap<>(String.CASE_INSENSITIVE_ORDER));

    private final Map<String, List<String>> byName;

    private MapHeaders(TreeMap<String, List<String>> byName) {
        this.byName = byName;
    }

    static Headers ofMulti(Map<String, ? extends List<String>> headers) {
        TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> {
            if (name != null && values != null) {
                for (String value : values) {
                    add(copy, name, value);
                }
            }
        });
        return freeze(copy);
    }

    static Headers ofSingle(Map<String, String> headers) {
        TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, value) -> {
            if (name != null) {
                add(copy, name, value);
            }
        });
        return freeze(copy);
    }

    private static void add(TreeMap<String, List<String>> copy, String name, String value) {
        if (value != null) {
            copy.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
    }

    private static Headers freeze(TreeMap<String, List<String>> copy) {
        copy.replaceAll((name, values) -> List.copyOf(values));
        return new MapHeaders(copy);
    }

    @Override
    public List<String> all(String name) {
        return byName.getOrDefault(name, List.of());
    }

    @Override
    public boolean anyNameStartsWith(List<String> lowerCasePrefixes) {
        for (String name : byName.keySet()) {
            for (String prefix : lowerCasePrefixes) {
                if (name.regionMatches(true, 0, prefix, 0, prefix.length())) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "Headers" + byName.keySet();
    }
}
