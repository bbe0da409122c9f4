package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The call's own expected duration: time to first token plus the typical output at the route's speed. */
class ServiceTimesTest {

    private static final long MS = 1_000_000;

    @Test
    void aRouteNeverAnsweredPredictsNothing() {
        assertThat(new ServiceTimes().predictNanos("dep|chat/batch", 500)).isZero();
    }

    @Test
    void aStreamTeachesTimeToFirstTokenAndTimePerTokenApart() {
        ServiceTimes t = new ServiceTimes();
        // 500 ms to the first token, then 100 tokens in 2 s: 20 ms a token.
        t.learn("r", 2_500 * MS, 500 * MS, 100);

        assertThat(t.predictNanos("r", 50)).isEqualTo(1_500 * MS);
    }

    @Test
    void theOutputPredictedIsTheRoutesTypicalOutputWhenTheReservationIsLarger() {
        ServiceTimes t = new ServiceTimes();
        t.learn("r", 2_500 * MS, 500 * MS, 100);

        // max_tokens 4,000 reserved, but the route's answers run to 100 tokens.
        assertThat(t.predictNanos("r", 4_000)).isEqualTo(2_500 * MS);
    }

    @Test
    void aWholeAnswerIsTimedPerTokenAfterTheRoutesTimeToFirstToken() {
        ServiceTimes t = new ServiceTimes();
        t.learn("r", 2_500 * MS, 500 * MS, 100);
        // 3 s for 100 tokens, 500 ms of it to the first: 25 ms a token; the mean of 20 and 25 is 22.5.
        t.learn("r", 3_000 * MS, -1, 100);

        assertThat(t.predictNanos("r", 100)).isEqualTo(2_750 * MS);
    }

    @Test
    void routesLearnApart() {
        ServiceTimes t = new ServiceTimes();
        t.learn("slow", 10_000 * MS, -1, 100);

        assertThat(t.predictNanos("fast", 100)).isZero();
        assertThat(t.predictNanos("slow", 100)).isEqualTo(10_000 * MS);
    }
}
