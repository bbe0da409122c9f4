package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Rfc3339Test {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            2025-08-21T12:40:59Z             | 2025-08-21T12:40:59Z
            2025-08-21t12:40:59z             | 2025-08-21T12:40:59Z
            2025-08-21 12:40:59Z             | 2025-08-21T12:40:59Z
            2025-08-21T12:40:59.5Z           | 2025-08-21T12:40:59.500Z
            2025-08-21T12:40:59.123456789Z   | 2025-08-21T12:40:59.123Z
            2025-08-21T14:40:59+02:00        | 2025-08-21T12:40:59Z
            2025-08-21T07:10:59-05:30        | 2025-08-21T12:40:59Z
            """)
    void parsesDateTimes(String text, String expected) {
        assertThat(Rfc3339.parseEpochMillis(text)).hasValue(Instant.parse(expected).toEpochMilli());
    }

    @ParameterizedTest(name = "rejects [{0}]")
    @CsvSource(delimiter = '|', textBlock = """
            ''
            2025-08-21
            2025-08-21T12:40:59
            2025-08-21T12:40Z
            2025-13-21T12:40:59Z
            2025-02-30T12:40:59Z
            2025-08-21T25:40:59Z
            2025-08-21T12:40:59+2:00
            2025-08-21T12:40:59+0200
            2025-08-21T12:40:59.Z
            2025-08-21T12:40:59.1234567890Z
            2025/08/21T12:40:59Z
            1755780059
            Thu, 21 Aug 2025 12:40:59 GMT
            -025-08-21T12:40:59Z
            """)
    void rejectsOtherText(String text) {
        assertThat(Rfc3339.parseEpochMillis(text == null ? "" : text)).isEmpty();
    }

    @Property
    void roundTripsInstantToString(@ForAll @LongRange(min = 0, max = 253_402_300_799_999L) long epochMillis) {
        assertThat(Rfc3339.parseEpochMillis(Instant.ofEpochMilli(epochMillis).toString())).hasValue(epochMillis);
    }

    @Property
    void neverThrows(@ForAll String text) {
        assertThat(Rfc3339.parseEpochMillis(text)).isNotNull();
    }
}
