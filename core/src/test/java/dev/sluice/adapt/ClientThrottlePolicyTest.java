package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ClientThrottlePolicyTest {

    @Test
    void nothingIsRefusedWhileRequestsStayWithinKTimesAccepts() {
        assertThat(ClientThrottlePolicy.rejectProbability(100, 50, 2.0)).isZero();
        assertThat(ClientThrottlePolicy.rejectProbability(100, 100, 2.0)).isZero();
        assertThat(ClientThrottlePolicy.rejectProbability(0, 0, 2.0)).isZero();
    }

    @Test
    void beyondThatTheExcessShareIsRefused() {
        // (100 - 2 * 30) / 101
        assertThat(ClientThrottlePolicy.rejectProbability(100, 30, 2.0)).isCloseTo(40.0 / 101, within(1e-12));
        assertThat(ClientThrottlePolicy.rejectProbability(100, 0, 2.0)).isCloseTo(100.0 / 101, within(1e-12));
        assertThat(ClientThrottlePolicy.rejectProbability(100, 30, 1.1)).isCloseTo(67.0 / 101, within(1e-12));
    }
}
