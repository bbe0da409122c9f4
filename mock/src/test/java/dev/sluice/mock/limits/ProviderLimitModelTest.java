package dev.sluice.mock.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.mock.limits.Admission.Accepted;
import dev.sluice.mock.limits.Admission.Limited;
import dev.sluice.mock.limits.Admission.TooLarge;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ProviderLimitModelTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;
    private static final long H = 3_600 * S;

    private static Ticket accepted(Admission a) {
        assertThat(a).isInstanceOf(Accepted.class);
        return ((Accepted) a).ticket();
    }

    private static Limited limited(Admission a) {
        assertThat(a).isInstanceOf(Limited.class);
        return (Limited) a;
    }

    private static Admission send(ProviderLimitModel m, long input, long maxTokens, long now) {
        return m.tryAdmit("t", input, 0, maxTokens, now);
    }

    @Nested
    class Requests {

        @Test
        void sixtyRpmOnTenSecondWindowsAdmitsTenPerWindowAndNamesTheWindowEnd() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(60).requestWindow(Duration.ofSeconds(10)).build());
            for (int i = 0; i < 10; i++) {
                accepted(send(m, 1, 0, 2_500 * MS));
            }
            assertThat(send(m, 1, 0, 2_500 * MS)).isEqualTo(new Limited(LimitKind.REQUESTS, 7_500, 10, 0, 1));
            accepted(send(m, 1, 0, 10 * S));
        }

        @Test
        void sixHundredRpmQuantisedPerSecondRejectsTheEleventhInOneSecond() {
            var m = new ProviderLimitModel(ProviderLimits.openAi(600, 0));
            for (int i = 0; i < 10; i++) {
                accepted(send(m, 1, 0, 0));
            }
            assertThat(limited(send(m, 1, 0, 500 * MS)).retryAfterMillis()).isEqualTo(500);
            accepted(send(m, 1, 0, 1 * S));
        }

        @Test
        void aWindowTooShortForOneRequestIsStretchedToHoldOne() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(3).requestWindow(Duration.ofSeconds(10)).build());
            accepted(send(m, 1, 0, 0));
            assertThat(send(m, 1, 0, 1 * S)).isEqualTo(new Limited(LimitKind.REQUESTS, 19_000, 1, 0, 1));
            accepted(send(m, 1, 0, 20 * S));
        }

        @Test
        void windowsAreAdjustedSoTheRateIsExactlyRpm() {
            // 50 RPM on 1 s windows: round(0.83) = 1 request per 1.2 s window.
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(50).requestWindow(Duration.ofSeconds(1)).build());
            accepted(send(m, 1, 0, 0));
            assertThat(limited(send(m, 1, 0, 1_100 * MS)).retryAfterMillis()).isEqualTo(100);
            accepted(send(m, 1, 0, 1_200 * MS));
        }

        @Test
        void requestsRejectedForTokensStillCountInTheWindow() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(12).tpm(100).build()); // 2 per 10 s
            accepted(send(m, 100, 0, 0));
            assertThat(limited(send(m, 100, 0, 0)).which()).isEqualTo(LimitKind.TOKENS);
            // 6 s later the bucket holds 10 tokens, enough for 5, but the window already saw two requests.
            assertThat(limited(send(m, 5, 0, 6 * S)).which()).isEqualTo(LimitKind.REQUESTS);
        }

        @Test
        void snapshotReportsTheCurrentWindowAndTheTrailingMinute() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(60).build());
            for (int i = 0; i < 3; i++) {
                send(m, 1, 0, 0);
            }
            send(m, 1, 0, 15 * S);
            send(m, 1, 0, 15 * S);
            LimitSnapshot snap = m.snapshot(15 * S);
            assertThat(snap.gauge(LimitKind.REQUESTS)).contains(new Gauge(10, 8, 5 * S));
            assertThat(snap.requestsPerMinute()).contains(new Gauge(60, 55, 55 * S));
            assertThat(m.snapshot(70 * S).requestsPerMinute()).contains(new Gauge(60, 60, 0));
        }
    }

    @Nested
    class Tokens {

        @Test
        void bucketRefillsContinuouslyAtOneMinutesWorth() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(60_000).build()); // 1,000 per second
            accepted(send(m, 50_000, 10_000, 0));
            assertThat(send(m, 1_000, 0, 0)).isEqualTo(new Limited(LimitKind.TOKENS, 1_000, 60_000, 0, 1_000));
            assertThat(send(m, 1_000, 0, 500 * MS)).isEqualTo(new Limited(LimitKind.TOKENS, 500, 60_000, 500, 1_000));
            accepted(send(m, 1_000, 0, 1 * S));
        }

        @Test
        void gaugeResetIsTheTimeToFullRefill() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(60_000).build());
            send(m, 6_000, 0, 0);
            assertThat(m.snapshot(1 * S).gauge(LimitKind.TOKENS)).contains(new Gauge(60_000, 55_000, 5 * S));
            assertThat(m.snapshot(6 * S).gauge(LimitKind.TOKENS)).contains(new Gauge(60_000, 60_000, 0));
        }

        @Test
        void inputTokensAreChargedOnArrival() {
            var m = new ProviderLimitModel(ProviderLimits.builder().inputTpm(1_000).build());
            send(m, 400, 5_000, 0);
            assertThat(m.snapshot(0).gauge(LimitKind.INPUT_TOKENS)).contains(new Gauge(1_000, 600, 24 * S));
        }

        @Test
        void singleRequestAboveAMinutesLimitIsTooLarge() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(30_000).build());
            assertThat(send(m, 30_000, 6_055, 0)).isEqualTo(new TooLarge(LimitKind.TOKENS, 30_000, 36_055));
            assertThat(m.tenantStats("t").tooLarge()).isEqualTo(1);
        }

        @Test
        void theLimitWithTheLongestWaitIsReported() {
            var m = new ProviderLimitModel(ProviderLimits.builder().inputTpm(600).tpm(60_000).build());
            accepted(send(m, 600, 59_000, 0));
            // input is 100 tokens short (10 s at 10/s); total is 700 short (0.7 s at 1,000/s)
            Limited l = limited(send(m, 100, 1_000, 0));
            assertThat(l.which()).isEqualTo(LimitKind.INPUT_TOKENS);
            assertThat(l.retryAfterMillis()).isEqualTo(10_000);
        }
    }

    @Nested
    class Output {

        @Test
        void maxTokensIsReservedAndCorrectedOnCompletion() {
            var m = new ProviderLimitModel(ProviderLimits.builder().outputTpm(10_000).tpm(60_000).build());
            Ticket first = accepted(send(m, 1_000, 9_000, 0));
            assertThat(m.snapshot(0).gauge(LimitKind.TOKENS).orElseThrow().remaining()).isEqualTo(50_000);
            assertThat(send(m, 1, 2_000, 0)).isEqualTo(new Limited(LimitKind.OUTPUT_TOKENS, 6_000, 10_000, 1_000, 2_000));
            assertThat(m.complete(first, 2_000, 0)).isTrue();
            assertThat(m.snapshot(0).gauge(LimitKind.OUTPUT_TOKENS).orElseThrow().remaining()).isEqualTo(8_000);
            assertThat(m.snapshot(0).gauge(LimitKind.TOKENS).orElseThrow().remaining()).isEqualTo(57_000);
            accepted(send(m, 1, 2_000, 0));
        }

        @Test
        void aReservationTooBigForTheOutputLimitIsTooLarge() {
            var m = new ProviderLimitModel(ProviderLimits.builder().outputTpm(8_000).build());
            assertThat(send(m, 10, 16_000, 0)).isEqualTo(new TooLarge(LimitKind.OUTPUT_TOKENS, 8_000, 16_000));
        }

        @Test
        void actualOnlyIgnoresMaxTokensAndCountsProducedTokensAsDebt() {
            var m = new ProviderLimitModel(ProviderLimits.builder()
                    .outputTpm(10_000).outputAccounting(OutputAccounting.ACTUAL_ONLY).build());
            Ticket t = accepted(send(m, 10, 50_000, 0));
            assertThat(m.snapshot(0).gauge(LimitKind.OUTPUT_TOKENS)).contains(new Gauge(10_000, 10_000, 0));
            m.complete(t, 12_000, 0);
            assertThat(m.snapshot(0).gauge(LimitKind.OUTPUT_TOKENS)).contains(new Gauge(10_000, 0, 72 * S));
            // 2,001 tokens must refill before one token is free: 2,001 x 6 ms.
            assertThat(send(m, 10, 100, 0)).isEqualTo(new Limited(LimitKind.OUTPUT_TOKENS, 12_006, 10_000, 0, 0));
            accepted(send(m, 10, 100, 12_006 * MS));
        }

        @Test
        void aRefundNeverFillsTheBucketBeyondFull() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(60_000).build());
            Ticket t = accepted(send(m, 0, 6_000, 0));
            m.complete(t, 0, 10 * S);
            assertThat(m.snapshot(10 * S).gauge(LimitKind.TOKENS)).contains(new Gauge(60_000, 60_000, 0));
        }
    }

    @Nested
    class CacheReads {

        @Test
        void excludedFromInputTpmWhenTheProviderSaysSo() {
            var m = new ProviderLimitModel(ProviderLimits.anthropic(0, 1_000, 0));
            accepted(m.tryAdmit("t", 100, 5_000, 0, 0));
            assertThat(m.snapshot(0).gauge(LimitKind.INPUT_TOKENS).orElseThrow().remaining()).isEqualTo(900);
            assertThat(m.tenantStats("t").cacheReadTokens()).isEqualTo(5_000);
        }

        @Test
        void chargedToInputTpmOtherwise() {
            var m = new ProviderLimitModel(ProviderLimits.builder().inputTpm(1_000).build());
            assertThat(m.tryAdmit("t", 100, 5_000, 0, 0)).isEqualTo(new TooLarge(LimitKind.INPUT_TOKENS, 1_000, 5_100));
        }
    }

    @Nested
    class Concurrency {

        @Test
        void rejectsBeyondTheLimitUntilARequestCompletes() {
            var m = new ProviderLimitModel(ProviderLimits.builder().maxConcurrency(2).build());
            Ticket a = accepted(send(m, 1, 1, 0));
            accepted(send(m, 1, 1, 0));
            assertThat(send(m, 1, 1, 0)).isEqualTo(new Limited(LimitKind.CONCURRENCY, 1_000, 2, 0, 1));
            m.complete(a, 1, 5 * MS);
            accepted(send(m, 1, 1, 5 * MS));
            assertThat(m.inFlight()).isEqualTo(2);
        }

        @Test
        void aTicketCompletesOnlyOnce() {
            var m = new ProviderLimitModel(ProviderLimits.builder().maxConcurrency(2).build());
            Ticket a = accepted(send(m, 1, 1, 0));
            assertThat(m.complete(a, 1, 0)).isTrue();
            assertThat(m.complete(a, 1, 0)).isFalse();
            assertThat(m.inFlight()).isZero();
        }
    }

    @Nested
    class Daily {

        @Test
        void resetsTwentyFourHoursAfterTheDayOrigin() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpd(3).build(), 5 * H);
            for (int i = 0; i < 3; i++) {
                accepted(send(m, 1, 1, 6 * H));
            }
            Limited l = limited(send(m, 1, 1, 6 * H));
            assertThat(l.which()).isEqualTo(LimitKind.REQUESTS_PER_DAY);
            assertThat(l.retryAfterMillis()).isEqualTo(23 * 3_600_000L);
            assertThat(m.snapshot(6 * H).gauge(LimitKind.REQUESTS_PER_DAY)).contains(new Gauge(3, 0, 23 * H));
            accepted(send(m, 1, 1, 29 * H));
        }
    }

    @Nested
    class Acceleration {

        private final ProviderLimits rule = ProviderLimits.builder().acceleration(AccelerationRule.of(2, 1)).build();

        @Test
        void withoutBaselineOnlyTheFloorIsAllowed() {
            var m = new ProviderLimitModel(rule);
            for (int i = 0; i < 5; i++) {
                accepted(send(m, 1, 1, 0));
            }
            assertThat(send(m, 1, 1, 0)).isEqualTo(new Limited(LimitKind.ACCELERATION, 5_000, 5, 0, 1));
        }

        @Test
        void aBaselineOfOnePerSecondAllowsThreePerSecondInTheRecentWindow() {
            var m = new ProviderLimitModel(rule);
            for (int second = 1; second <= 60; second++) {
                accepted(send(m, 1, 1, second * S));
            }
            for (int i = 0; i < 15; i++) {
                accepted(send(m, 1, 1, 65 * S));
            }
            assertThat(limited(send(m, 1, 1, 65 * S)).which()).isEqualTo(LimitKind.ACCELERATION);
            assertThat(m.tenantStats("t").limitedBy(LimitKind.ACCELERATION)).isEqualTo(1);
        }
    }

    @Nested
    class RunTime {

        @Test
        void raisingALimitKeepsWhatWasUsed() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(1_000).build());
            send(m, 1_000, 0, 0);
            m.setLimits(ProviderLimits.builder().tpm(2_000).build(), 0);
            assertThat(m.snapshot(0).gauge(LimitKind.TOKENS)).contains(new Gauge(2_000, 1_000, 30 * S));
        }

        @Test
        void loweringRpmKeepsTheWindowCount() {
            var m = new ProviderLimitModel(ProviderLimits.builder().rpm(60).build());
            send(m, 1, 0, 0);
            send(m, 1, 0, 0);
            m.setLimits(ProviderLimits.builder().rpm(12).build(), 0);
            assertThat(limited(send(m, 1, 0, 0)).which()).isEqualTo(LimitKind.REQUESTS);
        }

        @Test
        void removingALimitDropsItFromTheSnapshot() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(1_000).rpm(60).build());
            m.setLimits(ProviderLimits.UNLIMITED, 0);
            assertThat(m.snapshot(0).gauges()).isEmpty();
            assertThat(m.snapshot(0).requestsPerMinute()).isEmpty();
        }

        @Test
        void resetForgetsUsageTicketsAndStats() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(1_000).maxConcurrency(1).build());
            Ticket t = accepted(send(m, 1_000, 0, 0));
            m.reset();
            assertThat(m.complete(t, 5, 0)).isFalse();
            assertThat(m.tenantStats()).isEmpty();
            accepted(send(m, 1_000, 0, 0));
        }

        @Test
        void timeGoingBackwardsIsTreatedAsTheLatestTimeSeen() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(60_000).build());
            send(m, 60_000, 0, 2 * S);
            assertThat(limited(send(m, 1_000, 0, 1 * S)).retryAfterMillis()).isEqualTo(1_000);
        }

        @Test
        void worksWithNegativeMonotonicTimes() {
            var m = new ProviderLimitModel(ProviderLimits.builder().tpm(60_000).build());
            send(m, 60_000, 0, -100 * S);
            accepted(send(m, 1_000, 0, -99 * S));
        }
    }

    @Test
    void statsArePerTenant() {
        var m = new ProviderLimitModel(ProviderLimits.builder().maxConcurrency(1).build());
        Ticket t = accepted(m.tryAdmit("acme", 100, 20, 50, 0));
        m.tryAdmit("globex", 7, 0, 50, 0);
        m.complete(t, 42, 0);
        assertThat(m.tenantStats("acme"))
                .isEqualTo(new TenantStats(1, java.util.Map.of(), 0, 1, 100, 20, 42));
        assertThat(m.tenantStats("globex").limitedBy(LimitKind.CONCURRENCY)).isEqualTo(1);
        assertThat(m.tenantStats().keySet()).containsExactly("acme", "globex");
    }

    @Test
    void argumentsAreValidated() {
        var m = new ProviderLimitModel(ProviderLimits.UNLIMITED);
        assertThatThrownBy(() -> m.tryAdmit("t", -1, 0, 0, 0)).hasMessage("inputTokens: -1 (expected: >= 0)");
        assertThatThrownBy(() -> ProviderLimits.builder().requestWindow(Duration.ZERO).build())
                .hasMessage("requestWindow: PT0S (expected: between 1ms and 60s)");
        assertThatThrownBy(() -> ProviderLimits.builder().tpm(-5).build()).hasMessage("tpm: -5 (expected: >= 0)");
    }

    @Test
    void factoriesFollowTheProviders() {
        assertThat(ProviderLimits.azure(20_000).rpm()).isEqualTo(120);
        assertThat(new ProviderLimitModel(ProviderLimits.azure(20_000)).snapshot(0).gauge(LimitKind.REQUESTS))
                .contains(new Gauge(20, 20, 0));
        assertThat(ProviderLimits.openAi(60, 150_000).requestWindow()).isEqualTo(Duration.ofSeconds(1));
        assertThat(ProviderLimits.anthropic(50, 30_000, 8_000).cacheReadCountsAgainstInputTpm()).isFalse();
    }
}
