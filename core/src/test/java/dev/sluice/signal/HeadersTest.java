package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersTest {

    @Test
    void namesAreCaseInsensitive() {
        Headers headers = Headers.ofSingle(Map.of("Retry-After", "5"));
        assertThat(headers.all("retry-after")).containsExactly("5");
        assertThat(headers.all("RETRY-AFTER")).containsExactly("5");
    }

    @Test
    void namesDifferingOnlyInCaseAreMergedAndLinesKeepTheirOrder() {
        Map<String, List<String>> map = new HashMap<>();
        map.put("RateLimit", List.of("\"a\";r=1", "\"b\";r=2"));
        map.put("ratelimit", List.of("\"c\";r=3"));
        assertThat(Headers.of(map).all("Ratelimit")).hasSize(3).contains("\"a\";r=1", "\"b\";r=2", "\"c\";r=3");
    }

    @Test
    void absentHeaderIsAnEmptyList() {
        assertThat(Headers.empty().all("x")).isEmpty();
        assertThat(Headers.ofSingle(Map.of()).all("x")).isEmpty();
    }

    @Test
    void nullNamesAndValuesAreDropped() {
        Map<String, List<String>> map = new HashMap<>();
        map.put(null, List.of("x"));
        map.put("a", Arrays.asList("1", null, "2"));
        map.put("b", null);
        Headers headers = Headers.of(map);
        assertThat(headers.all("a")).containsExactly("1", "2");
        assertThat(headers.all("b")).isEmpty();
    }

    @Test
    void isACopyAndImmutable() {
        List<String> values = new ArrayList<>(List.of("1"));
        Map<String, List<String>> map = new HashMap<>(Map.of("a", values));
        Headers headers = Headers.of(map);
        values.add("2");
        map.put("b", List.of("3"));
        assertThat(headers.all("a")).containsExactly("1");
        assertThat(headers.all("b")).isEmpty();
        assertThatThrownBy(() -> headers.all("a").add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void toStringShowsNamesButNeverValues() {
        assertThat(Headers.ofSingle(Map.of("authorization", "Bearer sk-secret")).toString())
                .contains("authorization").doesNotContain("sk-secret");
    }
}
