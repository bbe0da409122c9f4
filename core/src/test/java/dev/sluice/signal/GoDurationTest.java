package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoDurationTest {

    @ParameterizedTest(name = "{0} = {1} ns")
    @CsvSource(delimiter = '|', textBlock = """
            0           | 0
            +0          | 0
            0s          | 0
            1s          | 1000000000
            6m0s        | 360000000000
            12ms        | 12000000
            120ms       | 120000000
            2.5s        | 2500000000
            1h2m3.5s    | 3723500000000
            .5s         | 500000000
            1.s         | 1000000000
            15us        | 15000
            15µs        | 15000
            15μs        | 15000
            7ns         | 7
            1.5ns       | 2
            9.816s      | 9816000000
            '  1s  '    | 1000000000
            2562047h    | 9223369200000000000
            """)
    void parsesGoDurations(String text, long nanos) {
        assertThat(GoDuration.parseNanos(text)).hasValue(nanos);
    }

    @ParameterizedTest(name = "rejects [{0}]")
    @CsvSource(delimiter = '|', textBlock = """
            ''
            s
            1
            10
            -1s
            -0s
            1x
            1S
            1.2.3s
            .s
            1 s
            NaNs
            Infinitys
            1e3s
            2562048h
            99999999999999999999999h
            +
            """)
    void rejectsNonDurations(String text) {
        assertThat(GoDuration.parseNanos(text == null ? "" : text)).isEmpty();
    }

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource(delimiter = '|', textBlock = """
            125ms | 125
            1ns   | 1
            1.5ms | 2
            6m0s  | 360000
            """)
    void millisRoundUpSoAWaitIsNeverCutShort(String text, long millis) {
        assertThat(GoDuration.parseMillis(text)).hasValue(millis);
    }

    @Property
    void formattedComponentsParseToTheirSum(@ForAll @IntRange(max = 500) int hours,
            @ForAll @IntRange(max = 59) int minutes, @ForAll @IntRange(max = 59) int seconds,
            @ForAll @IntRange(max = 999) int millis) {
        String text = hours + "h" + minutes + "m" + seconds + "s" + millis + "ms";
        long expected = ((hours * 60L + minutes) * 60 + seconds) * 1_000_000_000L + millis * 1_000_000L;
        assertThat(GoDuration.parseNanos(text)).hasValue(expected);
    }

    @Property
    void neverThrows(@ForAll String text) {
        assertThat(GoDuration.parseNanos(text)).isNotNull();
    }
}
