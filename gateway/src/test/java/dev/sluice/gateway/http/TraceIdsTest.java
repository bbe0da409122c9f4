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
    void upstreamTraceparentKeepsTheTrace() {
        assertThat(TraceIds.upstreamTraceparent("4bf92f3577b34da6a3ce929d0e0e4736"))
                .matches("00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01");
    }

    @Test
    void goDurationsLookLikeOpenAis() {
        assertThat(CallerQuota.goDuration(12)).isEqualTo("12ms");
        assertThat(CallerQuota.goDuration(1_500)).isEqualTo("1.5s");
        assertThat(CallerQuota.goDuration(360_000)).isEqualTo("6m0s");
        assertThat(CallerQuota.goDuration(3_723_000)).isEqualTo("1h2m3s");
    }
}
