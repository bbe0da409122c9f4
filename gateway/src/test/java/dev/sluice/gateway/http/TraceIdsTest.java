package dev.sluice.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceIdsTest {

    @Test
    void validTraceparentGivesItsTraceId() {
        assertThat(TraceIds.fromTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
                .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    }

    @Test
    void invalidOrAllZeroTraceparentGetsAFreshId() {
        for (String bad : new String[] {null, "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}) {
            String id = TraceIds.fromTraceparent(bad);
            assertThat(id).matches("[0-9a-f]{32}").isNotEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        }
    }

    @Test
    void aFreshIdLeadsWithTheTimeItWasMade() {
        long before = System.currentTimeMillis();
        String id = TraceIds.fromTraceparent(null);
        long after = System.currentTimeMillis();
        assertThat(dev.sluice.runtime.event.TimedTraceIds.timeOf(id).getAsLong()).isBetween(before, after);
    }

    @Test
    void upstreamTraceparentKeepsTheTrace() {
        assertThat(TraceIds.upstreamTraceparent("4bf92f3577b34da6a3ce929d0e0e4736"))
                .matches("00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01");
    }
}
