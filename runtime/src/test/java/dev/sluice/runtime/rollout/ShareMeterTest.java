package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The step's share in requests and tokens, and the growth ceiling, per clock minute. */
class ShareMeterTest {

    private static final long MINUTE = 60_000_000_000L;

    @Test
    void aRequestNotAssignedToTheTargetNeverRunsThere() {
        ShareMeter m = new ShareMeter(Map.of());

        assertThat(m.take(0, false, 100, 10, 10)).isFalse();
    }

    @Test
    void atTenPercentTheTargetTakesOneRequestInTenEvenWhenEveryRequestIsAssigned() {
        ShareMeter m = new ShareMeter(Map.of());
        int onTarget = 0;
        for (int i = 0; i < 100; i++) {
            onTarget += m.take(1, true, 10, 100, 0) ? 1 : 0;
        }

        assertThat(onTarget).isEqualTo(10);
    }

    @Test
    void aShareOfRequestsCarryingMoreThanItsShareOfTokensIsCut() {
        ShareMeter m = new ShareMeter(Map.of());
        // one large request on the target, then small ones: 10% of requests, but the target's tokens lead
        assertThat(m.take(1, true, 10, 10_000, 0)).isTrue();
        int onTarget = 0;
        for (int i = 0; i < 99; i++) {
            onTarget += m.take(1, true, 10, 100, 0) ? 1 : 0;
        }

        // the profile's 19 900 tokens have a tenth of 1 990, below the target's 10 000
        assertThat(onTarget).isZero();
    }

    @Test
    void theTargetTakesAtMostLastMinutesAmountPlusTheCeilingPerDimension() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L, Dimension.TOTAL_TOKENS, 1_000L));
        int first = 0;
        for (int i = 0; i < 50; i++) {
            first += m.take(1, true, 100, 100, 0) ? 1 : 0;
        }
        int second = 0;
        for (int i = 0; i < 50; i++) {
            second += m.take(MINUTE + 1, true, 100, 100, 0) ? 1 : 0;
        }
        int third = 0;
        for (int i = 0; i < 50; i++) {
            third += m.take(2 * MINUTE + 1, true, 100, 300, 0) ? 1 : 0;
        }

        assertThat(first).isEqualTo(5);
        assertThat(second).isEqualTo(10);
        // 10 x 100 tokens the minute before, plus 1 000: 2 000 tokens, six requests of 300
        assertThat(third).isEqualTo(6);
    }

    @Test
    void aQuietMinuteStartsTheGrowthAgainFromZero() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        for (int i = 0; i < 50; i++) {
            m.take(1, true, 100, 1, 0);
        }
        int afterGap = 0;
        for (int i = 0; i < 50; i++) {
            afterGap += m.take(3 * MINUTE, true, 100, 1, 0) ? 1 : 0;
        }

        assertThat(afterGap).isEqualTo(5);
    }

    @Test
    void theProfilesLastMinuteIsWhatItAskedForOnBothSides() {
        ShareMeter m = new ShareMeter(Map.of());
        for (int i = 0; i < 10; i++) {
            m.take(1, i % 2 == 0, 50, 30, 20);
        }

        assertThat(m.profileLastMinute(MINUTE + 1)).containsExactly(10, 300, 200);
        assertThat(m.targetThisMinute(MINUTE + 1, Dimension.REQUESTS)).isZero();
    }

    /** What another replica said it sent: its minute, then requests, input, output this minute and the one before. */
    private static long[] sent(long minute, long requests, long requestsBefore) {
        return new long[] {minute, requests, 0, 0, requestsBefore, 0, 0};
    }

    @Test
    void theCeilingCountsWhatTheOtherReplicasSaidTheySentThisMinute() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        m.take(1, false, 100, 1, 0);
        m.others(List.of(sent(0, 2, 0), sent(0, 1, 0)));
        int onTarget = 0;
        for (int i = 0; i < 50; i++) {
            onTarget += m.take(1, true, 100, 1, 0) ? 1 : 0;
        }

        // the fleet's ceiling of 5 in a first minute: the others took 3, this replica 2
        assertThat(onTarget).isEqualTo(2);
    }

    @Test
    void theOtherReplicasMinuteBeforeRaisesTheFleetsCeilingAsThisOnesOwnDoes() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        // one said it at minute 1 (4 then, 10 the minute before); one last spoke in minute 0 (6 then)
        m.others(List.of(sent(1, 4, 10), sent(0, 6, 0)));
        int onTarget = 0;
        for (int i = 0; i < 50; i++) {
            onTarget += m.take(MINUTE + 1, true, 100, 1, 0) ? 1 : 0;
        }

        // the fleet took 16 in minute 0: 16 + 5 in minute 1, of which the others took 4
        assertThat(onTarget).isEqualTo(17);
    }

    @Test
    void whatTheOthersSaidCountsOnlyInItsOwnMinutes() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        m.others(List.of(sent(0, 5, 0)));
        int onTarget = 0;
        for (int i = 0; i < 50; i++) {
            onTarget += m.take(2 * MINUTE + 1, true, 100, 1, 0) ? 1 : 0;
        }

        // minute 0 is two minutes back at minute 2: a quiet minute 1 starts the fleet from zero
        assertThat(onTarget).isEqualTo(5);
    }

    @Test
    void eachRoundReplacesWhatTheOthersSaidBefore() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        m.others(List.of(sent(0, 5, 0)));
        assertThat(m.take(1, true, 100, 1, 0)).isFalse();

        m.others(List.of());

        assertThat(m.take(2, true, 100, 1, 0)).as("the one that sent 5 left the fleet").isTrue();
    }

    @Test
    void whatThisReplicaSentIsItsMinuteAndItsTargetsCountsInItAndTheMinuteBefore() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 50L));
        for (int i = 0; i < 4; i++) {
            m.take(1, true, 100, 30, 20);
        }
        m.take(MINUTE + 1, true, 100, 7, 3);
        m.take(MINUTE + 2, false, 100, 7, 3);

        assertThat(m.sent(MINUTE + 3)).containsExactly(1, 1, 7, 3, 4, 120, 80);
    }

    @Test
    void aWallClockSetBackCountsInTheMinuteInProgress() {
        ShareMeter m = new ShareMeter(Map.of(Dimension.REQUESTS, 5L));
        for (int i = 0; i < 5; i++) {
            m.take(MINUTE + 1, true, 100, 1, 0);
        }

        assertThat(m.take(MINUTE - 1, true, 100, 1, 0)).as("minute 1 is full").isFalse();
        assertThat(m.sent(MINUTE - 1)[0]).isEqualTo(1);
    }
}
