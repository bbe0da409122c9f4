package dev.sluice.runtime.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TimedTraceIdsTest {

    @Test
    void aMadeTraceIdLeadsWithItsTimeInTwelveHexDigitsThenTwentyRandomOnes() {
        long at = 1_772_446_500_123L; // 2026-03-02T10:15:00.123Z = 0x019cae0b451b
        String id = TimedTraceIds.make(at);
        assertThat(id).hasSize(32).matches("[0-9a-f]{32}").startsWith("019cae0b451b");
        assertThat(TimedTraceIds.timeOf(id)).isEqualTo(OptionalLong.of(at));
        Set<String> tails = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            tails.add(TimedTraceIds.make(at).substring(12));
        }
        assertThat(tails).hasSize(1_000);
    }

    @Test
    void anyTraceIdWithTwelveHexDigitsFirstReadsAsATimeAndOthersAsNone() {
        assertThat(TimedTraceIds.timeOf("4bf92f3577b34da6a3ce929d0e0e4736")).isEqualTo(OptionalLong.of(0x4bf92f3577b3L));
        assertThat(TimedTraceIds.timeOf("ABCDEF012345")).isEqualTo(OptionalLong.of(0xabcdef012345L));
        assertThat(TimedTraceIds.timeOf("abcdef01234")).isEmpty();
        assertThat(TimedTraceIds.timeOf("abcdef01234g0000")).isEmpty();
        assertThat(TimedTraceIds.timeOf("t1")).isEmpty();
    }

    @Test
    void aTimeOutsideFortyEightBitsIsRefused() {
        assertThatThrownBy(() -> TimedTraceIds.make(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TimedTraceIds.make(1L << 48)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TimedTraceIds.make((1L << 48) - 1)).startsWith("ffffffffffff");
    }
}
