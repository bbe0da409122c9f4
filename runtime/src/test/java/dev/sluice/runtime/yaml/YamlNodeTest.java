package dev.sluice.runtime.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one reader of configuration and scenario files: every unit and every failure names its place. */
class YamlNodeTest {

    private static YamlNode yaml(String text) throws Exception {
        return YamlNode.root(new ObjectMapper(new YAMLFactory()).readTree(text));
    }

    @Test
    void durationsTakeEveryUnitAndCompoundForms() throws Exception {
        YamlNode n = yaml("a: 300ms\nb: 2s\nc: 20m\nd: 1h\ne: 1d\nf: 1m30s\ng: 1.5s");
        assertThat(n.get("a").requiredDuration()).isEqualTo(Duration.ofMillis(300));
        assertThat(n.get("b").requiredDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(n.get("c").requiredDuration()).isEqualTo(Duration.ofMinutes(20));
        assertThat(n.get("d").requiredDuration()).isEqualTo(Duration.ofHours(1));
        assertThat(n.get("e").requiredDuration()).isEqualTo(Duration.ofDays(1));
        assertThat(n.get("f").requiredDuration()).isEqualTo(Duration.ofSeconds(90));
        assertThat(n.get("g").requiredDuration()).isEqualTo(Duration.ofMillis(1500));
        assertThat(n.get("missing").duration(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aBadDurationNamesItsPathAndTheForm() throws Exception {
        YamlNode n = yaml("server:\n  timeout: 5 seconds\n  other: 5");
        assertThatThrownBy(() -> n.get("server").get("timeout").requiredDuration())
                .isInstanceOf(ConfigException.class)
                .hasMessage("server.timeout: \"5 seconds\" (expected: a duration such as 300ms, 2s, 20m, 1h, 1d)");
        assertThatThrownBy(() -> n.get("server").get("other").requiredDuration())
                .hasMessage("server.other: 5 (expected: a duration such as 300ms, 2s, 20m, 1h, 1d)");
    }

    @Test
    void ratesArePerSecond() throws Exception {
        YamlNode n = yaml("a: 5/s\nb: 300/m\nc: 3600/h\nd: 2.5");
        assertThat(n.get("a").ratePerSecond()).isEqualTo(5.0);
        assertThat(n.get("b").ratePerSecond()).isEqualTo(5.0);
        assertThat(n.get("c").ratePerSecond()).isEqualTo(1.0);
        assertThat(n.get("d").ratePerSecond()).isEqualTo(2.5);
    }

    @Test
    void numbersAreStrict() throws Exception {
        YamlNode n = yaml("a: \"12\"\nb: 1.5\nc: 4294967296");
        assertThatThrownBy(() -> n.get("a").longValue(0)).hasMessage("a: \"12\" (expected: a whole number)");
        assertThatThrownBy(() -> n.get("b").longValue(0)).hasMessage("b: 1.5 (expected: a whole number)");
        assertThatThrownBy(() -> n.get("c").intValue(0)).hasMessage("c: 4294967296 (expected: a whole number that fits 32 bits)");
        assertThatThrownBy(() -> n.get("a").doubleValue(0)).hasMessage("a: \"12\" (expected: a number)");
    }

    @Test
    void unknownKeysAndListsNameTheirPlace() throws Exception {
        YamlNode n = yaml("top:\n  items:\n    - {ok: 1}\n    - {bad: 2}");
        YamlNode second = n.get("top").get("items").items().get(1);
        assertThat(second.path()).isEqualTo("top.items[1]");
        assertThatThrownBy(() -> second.allowOnly(Set.of("ok")))
                .hasMessage("top.items[1].bad: an unknown key (expected: one of [ok])");
    }
}
