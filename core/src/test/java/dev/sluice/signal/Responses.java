package dev.sluice.signal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers: a fixed "now" and compact header construction. */
final class Responses {

    /** 2026-01-01T00:00:00Z, the same start as FakeClock. */
    static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private Responses() {}

    /** Headers from name/value pairs; a repeated name becomes several lines. */
    static Headers headers(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must pair up");
        }
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.computeIfAbsent(namesAndValues[i], n -> new ArrayList<>()).add(namesAndValues[i + 1]);
        }
        return Headers.of(map);
    }

    static ProviderSignal normalise(ProviderKind kind, int status, Headers headers, String body) {
        return new SignalNormaliser(kind).normalise(status, headers, body, NOW);
    }

    static ProviderSignal normalise(ProviderKind kind, int status, String body, String... namesAndValues) {
        return normalise(kind, status, headers(namesAndValues), body);
    }
}
