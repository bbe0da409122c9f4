package dev.sluice.mock.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.mock.limits.Admission.Accepted;
import dev.sluice.mock.limits.Admission.Limited;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The members of the provider family: how each axis changes what a provider admits and says. */
class ProviderBehaviourTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    private static ProviderLimitModel model(ProviderBehaviour b, ProviderLimits limits) {
        return new ProviderLimitModel(limits, b, 0, 0);
    }

    private static ProviderBehaviour input(WindowKind kind, Duration window, double burst) {
        return ProviderBehaviour.REFERENCE.withEnforcement(LimitKind.INPUT_TOKENS, new Enforcement(kind, window, burst));
    }

    private static final ProviderLimits SIXTY_K_INPUT = ProviderLimits.builder().inputTpm(60_000).build();

    private static Admission send(ProviderLimitModel m, long input, long now) {
        return m.tryAdmit("t", input, 0, 0, now);
    }

    private static Limited limited(Admission a) {
        assertThat(a).isInstanceOf(Limited.class);
        return (Limited) a;
    }

    @Nested
    class FixedWindows {

        private final ProviderLimitModel m = model(input(WindowKind.FIXED, Duration.ofSeconds(1), 1.0), SIXTY_K_INPUT);

        @Test
        void aOneSecondWindowAllowsASixtiethOfTheMinuteAndRefusesUntilItEnds() {
            assertThat(send(m, 1_000, 200 * MS)).isInstanceOf(Accepted.class);
            Limited l = limited(send(m, 1, 400 * MS));
            assertThat(l.which()).isEqualTo(LimitKind.INPUT_TOKENS);
            assertThat(l.retryAfterMillis()).isEqualTo(600);
            assertThat(l.limit()).as("429s name the per-minute limit").isEqualTo(60_000);
            assertThat(l.remaining()).as("and what the minute has left").isEqualTo(59_000);
            assertThat(send(m, 1_000, 1 * S)).isInstanceOf(Accepted.class);
        }

        @Test
        void aRequestLargerThanTheWindowPassesAnEmptyWindowAndWaitsForTheNextOtherwise() {
            assertThat(send(m, 100, 0)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 30_000, 100 * MS)).retryAfterMillis()).isEqualTo(900);
            assertThat(send(m, 30_000, 1 * S)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 30_000, 2 * S)).retryAfterMillis()).as("the minute still holds only 60,000")
                    .isEqualTo(58_000);
        }

        @Test
        void theMinuteBindsWhenTheShortWindowsBurstAllowsMore() {
            var wide = model(input(WindowKind.FIXED, Duration.ofSeconds(10), 10), SIXTY_K_INPUT);
            assertThat(send(wide, 60_000, 0)).isInstanceOf(Accepted.class);
            assertThat(limited(send(wide, 1, 30 * S)).retryAfterMillis()).isEqualTo(30_000);
        }

        @Test
        void refusedRequestsCountInTheShortWindowButNotInTheMinute() {
            var m = model(ProviderBehaviour.REFERENCE.withEnforcement(LimitKind.REQUESTS,
                    new Enforcement(WindowKind.FIXED, Duration.ofSeconds(1), 1.0)), ProviderLimits.builder().rpm(120).build());
            assertThat(send(m, 1, 0)).isInstanceOf(Accepted.class);
            assertThat(send(m, 1, 100 * MS)).isInstanceOf(Accepted.class);
            for (int i = 0; i < 50; i++) {
                assertThat(send(m, 1, 200 * MS)).isInstanceOf(Limited.class);
            }
            assertThat(m.snapshot(200 * MS).gauge(LimitKind.REQUESTS).orElseThrow().remaining()).isEqualTo(118);
            assertThat(send(m, 1, 1 * S)).isInstanceOf(Accepted.class);
        }

        @Test
        void unusedReservationsStayCounted() {
            var out = model(ProviderBehaviour.REFERENCE.withEnforcement(LimitKind.OUTPUT_TOKENS,
                    new Enforcement(WindowKind.FIXED, Duration.ofSeconds(1), 1.0)),
                    ProviderLimits.builder().outputTpm(60_000).build());
            var t = ((Accepted) out.tryAdmit("t", 0, 0, 1_000, 0)).ticket();
            out.complete(t, 10, 100 * MS);
            assertThat(out.tryAdmit("t", 0, 0, 500, 200 * MS)).isInstanceOf(Limited.class);
        }
    }

    @Nested
    class SlidingWindows {

        @Test
        void aSlidingWindowFreesWhatWasChargedOneWindowAgo() {
            var m = model(input(WindowKind.SLIDING, Duration.ofSeconds(1), 1.0), SIXTY_K_INPUT);
            assertThat(send(m, 600, 0)).isInstanceOf(Accepted.class);
            assertThat(send(m, 400, 500 * MS)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 500, 900 * MS)).retryAfterMillis()).isEqualTo(100);
            assertThat(send(m, 500, 1 * S)).isInstanceOf(Accepted.class);
        }

        @Test
        void fullRefillAnnouncesWhenEverythingHasLeftTheWindow() {
            var m = model(input(WindowKind.SLIDING, Duration.ofSeconds(1), 1.0)
                    .withRetryAfter(RetryAfterMeaning.FULL_REFILL), SIXTY_K_INPUT);
            send(m, 600, 0);
            send(m, 400, 500 * MS);
            assertThat(limited(send(m, 500, 900 * MS)).retryAfterMillis()).as("minute log empties at 60.5 s")
                    .isEqualTo(59_600);
        }
    }

    @Nested
    class TokenBuckets {

        private final ProviderLimitModel m = model(input(WindowKind.TOKEN_BUCKET, Duration.ofSeconds(1), 2.0),
                SIXTY_K_INPUT);

        @Test
        void aBucketHoldsTheBurstAndRefillsAtTheMinuteRate() {
            assertThat(send(m, 2_000, 0)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 500, 0)).retryAfterMillis()).isEqualTo(500);
            assertThat(send(m, 500, 500 * MS)).isInstanceOf(Accepted.class);
            assertThat(m.initialHeadroom(LimitKind.INPUT_TOKENS)).isEqualTo(2_000);
        }

        @Test
        void aRequestLargerThanTheBucketWaitsForAFullBucketAndLeavesDebt() {
            assertThat(send(m, 1, 0)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 5_000, 0)).retryAfterMillis()).isEqualTo(1);
            assertThat(send(m, 5_000, 1 * MS)).isInstanceOf(Accepted.class);
            assertThat(limited(send(m, 1, 2 * S)).retryAfterMillis()).as("5,000 - 2,000 of debt at 1,000/s")
                    .isEqualTo(1_002);
        }
    }

    @Nested
    class Counting {

        @Test
        void theProviderCountsWithItsOwnFactorAndFraming() {
            var c = new TokenCounting(1.1, 20);
            assertThat(c.prompt(1_000)).isEqualTo(1_120);
            assertThat(c.prompt(0)).isZero();
            assertThat(c.cacheRead(1_000, 500)).isEqualTo(550);
            assertThat(TokenCounting.EXACT.prompt(1_234)).isEqualTo(1_234);
        }

        @Test
        void outOfRangeFactorsAreRefused() {
            assertThatThrownBy(() -> new TokenCounting(3, 0)).hasMessageContaining("factor: 3.0");
        }
    }

    @Nested
    class WarmUpsAndChanges {

        @Test
        void aWarmUpDoublesItsShareEachStepFromTheFirstRequest() {
            var m = model(ProviderBehaviour.REFERENCE.withWarmUp(Optional.of(new WarmUp(0.25, Duration.ofSeconds(30)))),
                    SIXTY_K_INPUT);
            assertThat(m.rateFactor(0)).isEqualTo(0.25);
            assertThat(send(m, 15_000, 10 * S)).isInstanceOf(Accepted.class);
            assertThat(send(m, 1, 10 * S)).isInstanceOf(Limited.class);
            assertThat(m.limitsInForce().inputTpm()).isEqualTo(15_000);
            assertThat(m.rateFactor(40 * S)).isEqualTo(0.5);
            assertThat(m.rateFactor(70 * S)).isEqualTo(1.0);
            assertThat(send(m, 40_000, 70 * S)).isInstanceOf(Accepted.class);
            assertThat(new WarmUp(0.25, Duration.ofSeconds(30)).fullAfter()).isEqualTo(Duration.ofSeconds(60));
        }

        @Test
        void anUnannouncedCutHoldsForItsSpanAndTheLimitsSaySo() {
            var m = model(ProviderBehaviour.REFERENCE.withChanges(
                    List.of(new LimitChange(Duration.ofSeconds(10), Duration.ofSeconds(20), 0.5))), SIXTY_K_INPUT);
            m.snapshot(15 * S);
            assertThat(m.limitsInForce().inputTpm()).isEqualTo(30_000);
            assertThat(m.limits().inputTpm()).as("configured limits are not touched").isEqualTo(60_000);
            m.snapshot(20 * S);
            assertThat(m.limitsInForce().inputTpm()).isEqualTo(60_000);
            assertThat(m.behaviour().changesLimits()).isTrue();
        }
    }

    @Test
    void staleHeadersRepeatTheLastReportUntilItIsOldEnough() {
        var m = model(ProviderBehaviour.REFERENCE.withHeaders(HeaderReport.STALE, Duration.ofSeconds(5)),
                SIXTY_K_INPUT);
        LimitSnapshot first = m.reportedSnapshot(0);
        send(m, 10_000, 1 * S);
        assertThat(m.reportedSnapshot(4 * S)).isSameAs(first);
        assertThat(m.reportedSnapshot(5 * S).gauge(LimitKind.INPUT_TOKENS).orElseThrow().remaining())
                .isLessThan(60_000);
    }

    @Nested
    class Family {

        @Test
        void memberZeroIsTheReferenceAndEveryDrawIsReproducible() {
            assertThat(ProviderFamily.member(7, 0, "gpt", Duration.ofMinutes(20), ProviderFamily.Facts.ANY))
                    .isSameAs(ProviderBehaviour.REFERENCE);
            var a = ProviderFamily.member(7, 3, "gpt", Duration.ofMinutes(20), ProviderFamily.Facts.ANY);
            assertThat(ProviderFamily.member(7, 3, "gpt", Duration.ofMinutes(20), ProviderFamily.Facts.ANY)).isEqualTo(a);
            assertThat(ProviderFamily.member(7, 4, "gpt", Duration.ofMinutes(20), ProviderFamily.Facts.ANY)).isNotEqualTo(a);
            assertThat(ProviderFamily.member(8, 3, "gpt", Duration.ofMinutes(20), ProviderFamily.Facts.ANY)).isNotEqualTo(a);
            assertThat(ProviderFamily.member(7, 3, "claude", Duration.ofMinutes(20), ProviderFamily.Facts.ANY))
                    .isNotEqualTo(a);
            assertThat(a.name()).isEqualTo("m3");
        }

        @Test
        void drawsStayInsideTheirRangesAndTheProvidersFacts() {
            var facts = new ProviderFamily.Facts(EnumSet.of(WindowKind.TOKEN_BUCKET),
                    EnumSet.of(RetryAfterMeaning.NEXT_WINDOW, RetryAfterMeaning.FULL_REFILL), true);
            var seen = EnumSet.noneOf(HeaderReport.class);
            int warm = 0;
            int cut = 0;
            for (int k = 1; k <= 300; k++) {
                var b = ProviderFamily.member(1, k, "claude", Duration.ofMinutes(10), facts);
                assertThat(b.enforcement()).hasSize(4);
                b.enforcement().values().forEach(e -> {
                    assertThat(e.kind()).isEqualTo(WindowKind.TOKEN_BUCKET);
                    assertThat(e.window()).isBetween(Duration.ofMillis(100), Duration.ofSeconds(10));
                    assertThat(e.burst()).isBetween(1.0, 2.0);
                });
                assertThat(b.counting().factor()).isBetween(0.8, 1.2);
                assertThat(b.counting().perRequest()).isBetween(0L, 30L);
                assertThat(b.retryAfter()).isNotEqualTo(RetryAfterMeaning.ABSENT);
                seen.add(b.headers());
                warm += b.warmUp().isPresent() ? 1 : 0;
                for (LimitChange c : b.changes()) {
                    cut++;
                    assertThat(c.factor()).isBetween(0.5, 0.9);
                    assertThat(c.until()).isLessThanOrEqualTo(Duration.ofMinutes(9));
                }
            }
            assertThat(seen).containsExactlyInAnyOrder(HeaderReport.values());
            assertThat(warm).isBetween(60, 140);
            assertThat(cut).isBetween(60, 140);
            var gemini = new ProviderFamily.Facts(EnumSet.of(WindowKind.FIXED), EnumSet.allOf(RetryAfterMeaning.class),
                    false);
            assertThat(ProviderFamily.member(1, 5, "g", Duration.ofMinutes(10), gemini).headers())
                    .isEqualTo(HeaderReport.ABSENT);
        }
    }
}
