package dev.sluice.gateway.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TopLevelFieldTest {

    private static final byte[] USAGE = "usage".getBytes(StandardCharsets.US_ASCII);

    private static String valueOf(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        long slice = TopLevelField.find(b, USAGE);
        if (slice == TopLevelField.ABSENT) {
            return "absent";
        }
        if (slice == TopLevelField.UNDECIDED) {
            return "undecided";
        }
        return new String(b, TopLevelField.start(slice), TopLevelField.end(slice) - TopLevelField.start(slice),
                StandardCharsets.UTF_8);
    }

    @Test
    void findsTheValueOfATopLevelKey() {
        assertThat(valueOf("{\"id\":\"x\",\"usage\":{\"prompt_tokens\":3},\"model\":\"m\"}"))
                .isEqualTo("{\"prompt_tokens\":3}");
        assertThat(valueOf("{\"usage\" : 12 }")).isEqualTo("12");
        assertThat(valueOf(" {\n\"usage\":\t[1, {\"a\":[]}]\n}\n")).isEqualTo("[1, {\"a\":[]}]");
    }

    @Test
    void theLastOfRepeatedKeysCounts() {
        assertThat(valueOf("{\"usage\":1,\"usage\":{\"b\":2}}")).isEqualTo("{\"b\":2}");
        assertThat(valueOf("{\"usage\":1,\"usage\":2,\"model\":\"m\"}")).isEqualTo("2");
    }

    @Test
    void keysInsideValuesAndStringsAreNotTopLevel() {
        assertThat(valueOf("{\"choices\":[{\"usage\":1}],\"note\":\"\\\"usage\\\":2 }{\"}")).isEqualTo("absent");
        assertThat(valueOf("{\"a\":{\"usage\":1}}")).isEqualTo("absent");
        assertThat(valueOf("{\"a\":\"usage\"}")).isEqualTo("absent");
    }

    @Test
    void anEscapedTopLevelKeyIsLeftToTheParser() {
        assertThat(valueOf("{\"us\\u0061ge\":{\"prompt_tokens\":3}}")).isEqualTo("undecided");
    }

    @Test
    void whatIsNotOnePlainObjectIsLeftToTheParser() {
        for (String body : new String[] {"", "   ", "[{\"usage\":1}]", "\"usage\"", "<html>bad gateway</html>",
                "{\"usage\":1", "{\"usage\":1]", "{\"a\":[1}}", "{\"a\":\"unclosed}", "{\"usage\":1} trailing",
                "{\"usage\":1}}", "{\"a\":<b>}", "{\"a\":\"x\"}{\"b\":1}", "{\"a\":1}\u00e9"}) {
            assertThat(valueOf(body)).as(body).isEqualTo("undecided");
        }
    }

    @Test
    void nestingDeeperThanItTracksIsLeftToTheParser() {
        String deep = "[".repeat(70) + "]".repeat(70);
        assertThat(valueOf("{\"a\":" + deep + ",\"usage\":1}")).isEqualTo("undecided");
        String fine = "[".repeat(60) + "]".repeat(60);
        assertThat(valueOf("{\"a\":" + fine + ",\"usage\":1}")).isEqualTo("1");
    }
}
