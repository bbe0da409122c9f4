package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.signal.StructuredFields.Item;
import dev.sluice.signal.StructuredFields.SfBoolean;
import dev.sluice.signal.StructuredFields.SfBytes;
import dev.sluice.signal.StructuredFields.SfDecimal;
import dev.sluice.signal.StructuredFields.SfInteger;
import dev.sluice.signal.StructuredFields.SfString;
import dev.sluice.signal.StructuredFields.SfToken;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StructuredFieldsTest {

    @Test
    void parsesPoliciesWithParameters() {
        List<Item> items = StructuredFields.parseList("\"burst\";q=100;w=60,\"daily\";q=1000;w=86400").orElseThrow();
        assertThat(items).hasSize(2);
        assertThat(items.get(0).value()).isEqualTo(new SfString("burst"));
        assertThat(items.get(0).params()).containsEntry("q", new SfInteger(100)).containsEntry("w", new SfInteger(60));
        assertThat(items.get(1).params()).containsEntry("w", new SfInteger(86400));
    }

    @Test
    void parsesEveryBareItemType() {
        Item item = StructuredFields.parseList(
                "tok/en:x;i=-5;d=1.25;s=\"a\\\"b\";t=foo;b=:sdfjLJUOUH==:;yes;no=?0").orElseThrow().get(0);
        assertThat(item.value()).isEqualTo(new SfToken("tok/en:x"));
        assertThat(item.params())
                .containsEntry("i", new SfInteger(-5))
                .containsEntry("d", new SfDecimal(1.25))
                .containsEntry("s", new SfString("a\"b"))
                .containsEntry("t", new SfToken("foo"))
                .containsEntry("b", new SfBytes("sdfjLJUOUH=="))
                .containsEntry("yes", new SfBoolean(true))
                .containsEntry("no", new SfBoolean(false));
    }

    @Test
    void toleratesOptionalWhitespaceBetweenMembersAndAroundTheField() {
        assertThat(StructuredFields.parseList("  \"a\";r=1 ,\t\"b\";r=2  ").orElseThrow()).hasSize(2);
        assertThat(StructuredFields.parseList("\"a\"; r=1").orElseThrow().get(0).params())
                .containsEntry("r", new SfInteger(1));
    }

    @Test
    void emptyFieldIsAnEmptyList() {
        assertThat(StructuredFields.parseList("   ").orElseThrow()).isEmpty();
    }

    @ParameterizedTest(name = "rejects [{0}]")
    @ValueSource(strings = {
        "\"a\";Q=1", "\"a\";q=", "\"a\",", ",\"a\"", "\"a\" \"b\"", "\"unterminated", "\"a\";q=1.2345",
        "\"a\";q=1234567890123456", "(\"inner\" \"list\")", "@1659578233", "%\"display\"", "\"é\"",
        "\"a\";q=:bad!:", "\"a\";q=?2", "\"a\";1q=1", "\"bad\\escape\"", "\"a\";q=-", "\"a\";q=1.", "-"
    })
    void rejectsMalformedFields(String field) {
        assertThat(StructuredFields.parseList(field)).isEmpty();
    }

    @Test
    void refusesOverLongFields() {
        String many = String.join(",", java.util.Collections.nCopies(2000, "\"p\";q=1"));
        assertThat(StructuredFields.parseList(many)).isEmpty();
    }

    @Property
    void neverThrows(@ForAll String field) {
        assertThat(StructuredFields.parseList(field)).isNotNull();
    }
}
