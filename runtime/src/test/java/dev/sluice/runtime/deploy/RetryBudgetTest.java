package dev.sluice.runtime.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    @Test
    void noRetryBeforeTenFirstAttempts() {
        RetryBudget b = RetryBudget.tenPercent();
        for (int i = 0; i < 9; i++) {
            b.firstAttempt();
        }
        assertThat(b.tryRetry()).isFalse();
        b.firstAttempt();
        assertThat(b.tryRetry()).isTrue();
        assertThat(b.tryRetry()).isFalse();
    }

    @Test
    void theReserveIsCappedAtTenRetries() {
        RetryBudget b = RetryBudget.tenPercent();
        for (int i = 0; i < 1_000; i++) {
            b.firstAttempt();
        }
        int retries = 0;
        while (b.tryRetry()) {
            retries++;
        }
        assertThat(retries).isEqualTo(10);
    }

    @Property
    void retriesNeverExceedTenPercentOfFirstAttempts(@ForAll @IntRange(min = 0, max = 5_000) int attempts) {
        RetryBudget b = RetryBudget.tenPercent();
        int retries = 0;
        for (int i = 0; i < attempts; i++) {
            b.firstAttempt();
            if (b.tryRetry()) {
                retries++;
            }
        }
        assertThat(retries).isLessThanOrEqualTo(attempts / 10);
    }
}
