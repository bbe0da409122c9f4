package dev.sluice.sim.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The gateway's retry budget as the simulator applies it: one retry per ten first attempts, ten saved at most. */
class GatewayRetryBudgetTest {

    @Test
    void tenFirstAttemptsEarnOneRetry() {
        GatewayRetryBudget b = new GatewayRetryBudget();
        for (int i = 0; i < 9; i++) {
            b.firstAttempt();
        }
        assertThat(b.tryRetry()).isFalse();
        b.firstAttempt();
        assertThat(b.tryRetry()).isTrue();
        assertThat(b.tryRetry()).isFalse();
    }

    @Test
    void atMostTenRetriesAreSavedUp() {
        GatewayRetryBudget b = new GatewayRetryBudget();
        for (int i = 0; i < 1_000; i++) {
            b.firstAttempt();
        }
        int taken = 0;
        while (b.tryRetry()) {
            taken++;
        }
        assertThat(taken).isEqualTo(10);
    }
}
