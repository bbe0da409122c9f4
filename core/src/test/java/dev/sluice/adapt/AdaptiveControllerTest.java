package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.GovernorInvariants;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.ramp.RampConfig;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AdaptiveControllerTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;
    private static final String DEP = "dep";
    private static final Scope SCOPE = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, DEP);
    private static final Limits LIMITS = Limits.of(Limit.of(Dimension.REQUESTS, 1200),
            Limit.of(Dimension.TOTAL_TOKENS, 900_000));
    private static final AdaptiveConfig NO_RAMP = AdaptiveConfig.defaults().withRamp(RampConfig.disabled());

    private final FakeClock clock = new FakeClock();
    private final List<AdaptiveEvent> events = new ArrayList<>();

    private QuotaGovernor governor(Limits limits) {
        GovernorConfig config = GovernorConfig.builder().scope(SCOPE, limits).build();
        return GovernorInvariants.track(new QuotaGovernor(config, new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock));
    }

    private AdaptiveController attach(QuotaGovernor governor, AdaptiveConfig config, double draw) {
        AdaptiveController c = AdaptiveController.attach(DEP, config, governor, new FixedRandom(draw));
        c.addListener(events::add);
        return c;
    }

    private static BucketState.DimensionState state(QuotaGovernor g, Dimension d) {
        return g.bucket(SCOPE).orElseThrow().of(d).orElseThrow();
    }

    private static AdmissionRequest request(TrafficClass c) {
        return new AdmissionRequest("r", new RequestPath("org", "acme", "team", "key", "profile", DEP),
                new Demand(500, 500, false), c, AdmissionRequest.NO_DEADLINE);
    }

    private <T extends AdaptiveEvent> List<T> eventsOf(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    // ---- cooldown ----

    @Test
    void aColdStartRunsAtTheRampsFirstStage() {
        QuotaGovernor g = governor(LIMITS);
        attach(g, AdaptiveConfig.defaults(), 0.5);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.10);
        assertThat(state(g, Dimension.TOTAL_TOKENS).rateFactor()).isEqualTo(0.10);
    }

    // ---- multiplier ----

    @Test
    void withoutAnyAnswerACutMultiplierClimbsAHundredthPerSecondOnceTenSecondsAreClean() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.65, within(1e-12));
        clock.setNanos(10 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.65, within(1e-12));
        clock.setNanos(20 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.TOTAL_TOKENS)).isCloseTo(0.75, within(1e-12));
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.75, within(1e-12));
        // A fresh refusal cuts and starts the ten clean seconds again; it ended a climb by clean
        // time, so the next climb runs at half speed.
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.4875, within(1e-12));
        clock.setNanos(30 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.4875, within(1e-12));
        clock.setNanos(35 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.5125, within(1e-12));
        clock.setNanos(150 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isEqualTo(1.0);
    }

    @Test
    void eachRefusalThatEndsAClimbByCleanTimeHalvesTheNextClimbUntilOneHundredSixtyCleanSeconds() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        clock.setNanos(20 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.75, within(1e-12));
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        clock.setNanos(40 * S);
        c.tick();
        // 0.4875 + 0.01 / 2 x 10 s
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.5375, within(1e-12));
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        clock.setNanos(60 * S);
        c.tick();
        // 0.349375 + 0.01 / 4 x 10 s
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.374375, within(1e-12));
        assertThat(c.snapshot().climbSlowdowns()).isEqualTo(2);
        clock.setNanos(199 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.721875, within(1e-12));
        // 160 s after the last refusal: full speed again.
        clock.setNanos(200 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.731875, within(1e-12));
        assertThat(c.snapshot().climbSlowdowns()).isZero();
    }

    @Test
    void aRefusalAfterAClimbBySuccessesAloneLeavesTheClimbByCleanTimeAtFullSpeed() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        clock.setNanos(5 * S);
        c.onSignal(Signals.success(), 0);
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.68, within(1e-12));
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.442, within(1e-12));
        clock.setNanos(25 * S);
        c.tick();
        // 0.442 + 0.01 x 10 s
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.542, within(1e-12));
    }

    @Test
    void withTheClimbByCleanTimeOffOnlySuccessesRaiseTheMultiplier() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP.withMultiplier(
                new MultiplierConfig(0.65, 0.03, 0.2, false, Duration.ofSeconds(10), 0)), 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        clock.setNanos(120 * S);
        c.tick();
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.65, within(1e-12));
    }

    @Test
    void aControllerAttachedLateStartsWithoutAPause() {
        clock.setNanos(3_600 * S);
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.tick();
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isZero();
        assertThat(c.snapshot().pausedForNanos()).containsEntry(Dimension.REQUESTS, 0L);
        assertThat(g.admit(request(TrafficClass.INTERACTIVE))).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void a429NamingARatePausesOnlyThatRateForItsOneSecondWindowsRefillPlusJitter() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        // A 4 s hint, but the deployment's default window refills in 1 s.
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(4_000)), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(1_050 * MS);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isZero();
        assertThat(eventsOf(CooldownStarted.class)).containsExactly(
                new CooldownStarted(DEP, List.of(Dimension.TOTAL_TOKENS), 1_050 * MS, "rate_limited", 0));
    }

    @Test
    void aMinutesRefillAnnouncedForAMinuteDeepRateIsCutToTheTenSecondWindow() {
        // A burst of a whole minute: the bucket refills in 60 s, longer than rate_window.
        QuotaGovernor g = governor(Limits.of(Limit.of(Dimension.REQUESTS, 1200),
                Limit.of(Dimension.TOTAL_TOKENS, 900_000, 900_000)));
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(60_000)), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(10_500 * MS);
    }

    @Test
    void a429NamingARateWithAShorterHintPausesForTheHint() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.0);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(300)), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(300 * MS);
    }

    @Test
    void aConfiguredRateWindowSizesThePause() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP.withCooldown(CooldownConfig.defaults().withJitterRatio(0)
                .withRateWindow(Duration.ofSeconds(1))), 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(60_000)), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(S);
    }

    @Test
    void a429WithoutDelayPausesEveryRateForTheOneSecondFloor() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isEqualTo(1_050 * MS);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(1_050 * MS);
    }

    @Test
    void anExhaustedQuotaPausesFiveMinutesWithoutCuttingTheRate() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.0);
        c.onSignal(Signals.refused(ProviderSignal.REASON_INSUFFICIENT_QUOTA, Optional.empty(), OptionalLong.empty()), 0);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isEqualTo(300 * S);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
    }

    @Test
    void oneOversizedRequestChangesNothing() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.refused(ProviderSignal.REASON_REQUEST_TOO_LARGE, Optional.of(LimitKind.TOKENS),
                OptionalLong.empty()), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isZero();
        assertThat(state(g, Dimension.TOTAL_TOKENS).rateFactor()).isEqualTo(1.0);
    }

    @Test
    void withoutARateToPauseTheGuardRefusesForTheCooldown() {
        QuotaGovernor g = governor(Limits.of(Limit.of(Dimension.CONCURRENT_REQUESTS, 10)));
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        Optional<Rejection> r = c.screen(TrafficClass.CRITICAL, 0);
        assertThat(r).hasValueSatisfying(x -> {
            assertThat(x.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
            assertThat(x.code()).isEqualTo("deployment_cooling_down");
            assertThat(x.retryAfterMillis()).isEqualTo(1_050);
        });
        assertThat(c.screen(TrafficClass.CRITICAL, 1_050 * MS)).isEmpty();
    }

    // ---- multiplier ----

    @Test
    void a429CutsTheRateByAThirdAndEachSuccessGivesThreePercentBack() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.65, within(1e-9));
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.74, within(1e-9));
        assertThat(state(g, Dimension.TOTAL_TOKENS).rateFactor()).isCloseTo(0.74, within(1e-9));
    }

    @Test
    void aRefusalOfARequestSentBeforeTheLastCutDoesNotCutAgain() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        clock.advanceMillis(100);
        c.onSignal(Signals.limited(), 200 * MS);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.65, within(1e-9));
        c.onSignal(Signals.limited(), 50 * MS);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.4225, within(1e-9));
    }

    @Test
    void freshRefusalsStopAtTheFloor() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 6; i++) {
            clock.advanceMillis(10);
            c.onSignal(Signals.limited(), 0);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.20);
    }

    @Test
    void perDimensionMultipliersCutOnlyTheNamedRate() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP.withMultiplier(new MultiplierConfig(0.65, 0.03, 0.2, true)), 0.5);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(100)), 0);
        assertThat(state(g, Dimension.TOTAL_TOKENS).rateFactor()).isCloseTo(0.65, within(1e-9));
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
    }

    @Test
    void withoutLimitFiguresAFresh429SetsACeilingFromTheSuccessfulShare() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = withLearnedCeiling(g);
        // 30 of 31 answers succeeded at factor 1: ceiling 30/31; the cut applies below it.
        assertThat(c.snapshot().ceiling()).isCloseTo(0.95, within(1e-9));
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.95 * 0.65, within(1e-9));
    }

    /** Thirty successes, then a fresh 429 without limit figures: a ceiling of 0.95. */
    private AdaptiveController withLearnedCeiling(QuotaGovernor g) {
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 30; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        clock.advanceMillis(10);
        c.onSignal(Signals.limited(), 0);
        return c;
    }

    // ---- which ceiling owns a refusal: the ramp or the multiplier ----

    /** A controller with the default ramp, answered clean until its second stage (0.25) is reached. */
    private AdaptiveController atTheRampsSecondStage(QuotaGovernor g) {
        AdaptiveController c = attach(g, AdaptiveConfig.defaults(), 0.5);
        for (int i = 0; i < 10; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        clock.advanceMillis(5_000);
        c.tick();
        clock.advanceMillis(20_000);
        // Nine more: twenty answers in the window, one short of judging the stage.
        for (int i = 0; i < 9; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        assertThat(c.snapshot().rampStage()).isEqualTo(1);
        assertThat(c.snapshot().rampFraction()).isCloseTo(0.25, within(1e-9));
        return c;
    }

    @Test
    void aRefusalWhileTheRampBindsIsTheRampsAndCutsNeitherTheMultiplierNorTheCeiling() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = atTheRampsSecondStage(g);
        clock.advanceMillis(10);
        c.onSignal(Signals.limited(), 0);
        // Sent at the ramp's pace, a quarter of the limit: the successful share would teach a ceiling of 0.25.
        assertThat(c.snapshot().ceiling()).isEqualTo(1.0);
        assertThat(c.snapshot().multipliers()).containsEntry(Dimension.REQUESTS, 1.0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.25, within(1e-9));
    }

    @Test
    void refusalsWhileTheRampBindsSendItBackAStage() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = atTheRampsSecondStage(g);
        clock.advanceMillis(10);
        c.onSignal(Signals.limited(), 0);
        clock.advanceMillis(10);
        c.onSignal(Signals.limited(), 0);
        clock.advanceMillis(1_000);
        c.tick();
        assertThat(c.snapshot().rampStage()).isZero();
        assertThat(c.snapshot().multipliers()).containsEntry(Dimension.REQUESTS, 1.0);
    }

    @Test
    void aRefusalOnTheLastStageEndsTheRampAndTheMultiplierTakesOverOneCutBelowWhereItWas() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, AdaptiveConfig.defaults(), 0.5);
        // Through the first three stages, clean.
        for (int stage = 0; stage < 3; stage++) {
            for (int i = 0; i < 10; i++) {
                c.onSignal(Signals.success(), 100 * MS);
            }
            clock.advanceMillis(30_000);
            c.tick();
        }
        assertThat(c.snapshot().rampStage()).isEqualTo(3);
        // Half way up the last climb: 0.5 + 0.8 x 15 s / 60 s = 0.70.
        clock.advanceMillis(15_000);
        double reached = c.snapshot().rampFraction();
        assertThat(reached).isCloseTo(0.70, within(1e-9));
        c.onSignal(Signals.limited(), 0);

        assertThat(c.snapshot().rampFraction()).isEqualTo(1.0);
        assertThat(c.snapshot().ceiling()).isEqualTo(1.0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.70 * 0.65, within(1e-9));
        assertThat(eventsOf(RampChanged.class).getLast().step().toStage()).isEqualTo(3);
        // From there the multiplier climbs by its successes, not by the ramp's minute-long stages.
        c.onSignal(Signals.success(), 100 * MS);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.70 * 0.65 + 0.03, within(1e-9));
    }

    @Test
    void theHeaderlessCeilingClimbsInBrownoutWhileAnswersAreClean() {
        AdaptiveController c = withLearnedCeiling(governor(LIMITS));
        for (int i = 0; i < 20; i++) {
            c.onQueueRefused(TrafficClass.INTERACTIVE);
        }
        c.tick();
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        // The refusal has left the 30 s window: clean, still in brownout, 31 s at 5% a minute.
        clock.advanceMillis(31_000);
        c.tick();
        assertThat(c.snapshot().ceiling()).isCloseTo(0.95 + 0.05 * 31 / 60, within(1e-9));
    }

    @Test
    void anOverloadTeachesNoCeiling() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 30; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        clock.advanceMillis(10);
        c.onSignal(Signals.overloaded(), 0);
        assertThat(c.snapshot().ceiling()).isEqualTo(1.0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.65, within(1e-9));
    }

    @Test
    void withLimitFiguresNoCeilingIsLearned() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 30; i++) {
            c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 1200)), 100 * MS);
        }
        clock.advanceMillis(10);
        c.onSignal(Signals.limited(), 0);
        assertThat(c.snapshot().ceiling()).isEqualTo(1.0);
        assertThat(c.snapshot().headerless()).isFalse();
    }

    // ---- correction ----

    @Test
    void aLowerRemainingFigureSyncsTheBucketDownAtOnce() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.success(Signals.remaining(LimitKind.TOKENS, 1_000)), 100 * MS);
        assertThat(state(g, Dimension.TOTAL_TOKENS).available()).isEqualTo(1_000.0);
        // From a full bucket of one second's 15,000 (900,000 a minute over the default window).
        assertThat(eventsOf(CapacitySynced.class)).containsExactly(
                new CapacitySynced(DEP, Dimension.TOTAL_TOKENS, 15_000, 1_000, 0));
    }

    @Test
    void aHigherRemainingFigureNeverRaisesTheBucket() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.success(Signals.remaining(LimitKind.TOKENS, 1_000)), 100 * MS);
        c.onSignal(Signals.success(Signals.remaining(LimitKind.TOKENS, 800_000)), 100 * MS);
        assertThat(state(g, Dimension.TOTAL_TOKENS).available()).isEqualTo(1_000.0);
        assertThat(eventsOf(CapacitySynced.class)).hasSize(1);
    }

    @Test
    void threeLowerLimitFiguresAreAdoptedAndReportedAsDrift() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 2; i++) {
            c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 600)), 100 * MS);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
        clock.advanceMillis(5);
        c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 600)), 100 * MS);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
        assertThat(state(g, Dimension.TOTAL_TOKENS).rateFactor()).isEqualTo(1.0);
        assertThat(eventsOf(LimitDrift.class)).containsExactly(
                new LimitDrift(DEP, Dimension.REQUESTS, 1200, 600, 0.5, 5 * MS));
    }

    @Test
    void limitFiguresAboveTheConfiguredLimitAreNeverAdopted() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 5; i++) {
            c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 2400)), 100 * MS);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
        assertThat(eventsOf(LimitDrift.class)).isEmpty();
    }

    @Test
    void aTenSecondRequestWindowIsComparedPerMinute() {
        QuotaGovernor g = governor(LIMITS);
        CorrectionConfig azure = new CorrectionConfig(true, true, 0.05, 3,
                Map.of(Dimension.REQUESTS, Duration.ofSeconds(10)));
        AdaptiveController c = attach(g, NO_RAMP.withCorrection(azure), 0.5);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 200)), 100 * MS);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 100)), 100 * MS);
        }
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
    }

    @Test
    void aFigureFromARequestSentBeforeOneAlreadyAppliedIsSkipped() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        clock.setNanos(10 * S);
        // Two fresh figures of 600 rpm, then a success sent long before carrying the old 1200, then a third 600.
        c.onSignal(Signals.limited(Signals.limit(LimitKind.REQUESTS, 600)), 30 * MS);
        c.onSignal(Signals.limited(Signals.limit(LimitKind.REQUESTS, 600)), 20 * MS);
        c.onSignal(Signals.success(Signals.limit(LimitKind.REQUESTS, 1200)), 3 * S);
        c.onSignal(Signals.limited(Signals.limit(LimitKind.REQUESTS, 600)), 10 * MS);
        assertThat(c.snapshot().observedLimitFactors()).containsEntry(Dimension.REQUESTS, 0.5);
    }

    @Test
    void anAdoptedLimitReexpressesTheMultiplierAgainstTheNewBase() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.limited(Signals.limit(LimitKind.REQUESTS, 600)), 10 * S);
        }
        // 0.65 of 1200 rpm would be 780 rpm; against 600 rpm that is capped at 1: 600 rpm.
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
    }

    // ---- modes ----

    /** Three fresh 429s one second apart: caution, brownout, load shedding. */
    private AdaptiveController overloaded(QuotaGovernor g) {
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.limited(), 0);
            clock.advanceMillis(1_000);
        }
        return c;
    }

    @Test
    void consecutiveCutsMoveThroughCautionAndBrownoutToLoadShedding() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        assertThat(c.mode()).isEqualTo(Mode.LOAD_SHEDDING);
        assertThat(eventsOf(ModeTransition.class)).containsExactly(
                new ModeTransition(DEP, Mode.NORMAL, Mode.CAUTION, "multiplier 0.65 < 0.85", 0),
                new ModeTransition(DEP, Mode.CAUTION, Mode.BROWNOUT, "multiplier 0.42 < 0.55", S),
                new ModeTransition(DEP, Mode.BROWNOUT, Mode.LOAD_SHEDDING, "multiplier 0.27 < 0.30", 2 * S));
    }

    @Test
    void loadSheddingRefusesAllButCriticalAndInteractiveBeforeAnyBucketIsTouched() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        // An interactive caller asks: shedding has someone to protect.
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        Decision d = g.admit(request(TrafficClass.BATCH));
        assertThat(d).isInstanceOfSatisfying(Decision.Rejected.class, r -> {
            assertThat(r.rejection().decision()).isEqualTo(GatewayDecision.SHED_UNDER_PRESSURE);
            assertThat(r.rejection().code()).isEqualTo("load_shedding_non_critical");
            assertThat(r.rejection().scopeName()).isEqualTo("deployment:dep");
            assertThat(r.rejection().message()).isEqualTo("Deployment dep is shedding load after repeated provider "
                    + "refusals: only critical and interactive requests are served for now; retry in 14.0 s or later.");
            // Entered at 2 s, now 3 s: at least 14 s of dwell are left.
            assertThat(r.rejection().retryAfterMillis()).isEqualTo(14_000);
        });
        assertThat(state(g, Dimension.REQUESTS).reserved()).isZero();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
        assertThat(c.brownout(clock.nanos())).isTrue();
    }

    @Test
    void aReplicaInTheFleetAppliesTheMostSevereModeAnotherReplicaPublishedWhileItStands() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.fleetMode(Mode.LOAD_SHEDDING, clock.nanos() + S);
        c.screen(TrafficClass.INTERACTIVE, clock.nanos());

        Decision d = g.admit(request(TrafficClass.BATCH));

        assertThat(d).isInstanceOfSatisfying(Decision.Rejected.class, r -> {
            assertThat(r.rejection().code()).isEqualTo("load_shedding_non_critical");
            // No dwell of its own to wait out: the minimum retry delay.
            assertThat(r.rejection().retryAfterMillis()).isEqualTo(NO_RAMP.modes().minRetryAfter().toMillis());
        });
        assertThat(c.screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
        assertThat(c.brownout(clock.nanos())).isTrue();
        // Its own mode is what it publishes: unchanged.
        assertThat(c.mode()).isEqualTo(Mode.NORMAL);
        assertThat(c.modeInForce(clock.nanos())).isEqualTo(Mode.LOAD_SHEDDING);
        clock.advanceNanos(S);
        assertThat(c.modeInForce(clock.nanos())).isEqualTo(Mode.NORMAL);
        assertThat(g.admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aCalmerFleetModeNeverRelaxesThisReplicasOwn() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        c.fleetMode(Mode.NORMAL, clock.nanos() + 10 * S);
        c.screen(TrafficClass.INTERACTIVE, clock.nanos());

        assertThat(c.modeInForce(clock.nanos())).isEqualTo(Mode.LOAD_SHEDDING);
        assertThat(g.admit(request(TrafficClass.BATCH))).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aReplicaSheddingOnlyBecauseAnotherIsShedsAsDeepAsThatOne() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.fleet(new FleetAdaptive(Mode.LOAD_SHEDDING, false, Optional.empty()), "r1", clock.nanos() + S);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();

        c.fleet(new FleetAdaptive(Mode.LOAD_SHEDDING, true, Optional.empty()), "r1", clock.nanos() + S);

        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.code()).isEqualTo("load_shedding_non_critical");
            assertThat(r.message()).contains("only critical requests are served for now");
        });
        assertThat(c.screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
        // Its own state is what it publishes: neither shedding nor deep, and an interactive caller just now.
        assertThat(c.published("r1")).isEqualTo(new FleetAdaptive(Mode.NORMAL, false, Optional.empty(), 0));
        clock.advanceNanos(S);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
    }

    @Test
    void aReplicaPublishesItsOwnDeepSheddingAndItsProbeWithThePauseLeftBeforeIt() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController shedding = overloaded(g);
        for (int i = 0; i < 3; i++) {
            shedding.onSignal(Signals.limited(), 0);
            clock.advanceMillis(1_000);
        }
        assertThat(shedding.published("r0")).isEqualTo(new FleetAdaptive(Mode.LOAD_SHEDDING, true, Optional.empty()));

        QuotaGovernor g2 = governor(LIMITS);
        AdaptiveController overloaded = attach(g2, NO_RAMP, 0.9);
        clock.setNanos(100 * S);
        overloaded.onSignal(unavailableForAnHour(), 0);
        clock.setNanos(110 * S);
        assertThat(overloaded.published("r0").probe()).hasValueSatisfying(p -> {
            assertThat(p.holder()).isEqualTo("r0");
            assertThat(p.cause()).isEqualTo("the provider answered 503 (overloaded)");
            // The 60 s cap on an overload's pause, 10 s of it gone.
            assertThat(p.startsInNanos()).isEqualTo(50 * S);
        });
    }

    @Test
    void whileAnotherReplicaHoldsTheFleetsProbeThisOneSendsNoProbeOfItsOwn() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.9);
        FleetAdaptive.Probe elsewhere = new FleetAdaptive.Probe(2 * S, "r0", "the provider answered 503 (overloaded)");
        c.fleet(new FleetAdaptive(Mode.NORMAL, false, Optional.of(elsewhere)), "r1", clock.nanos() + 10 * S);
        // Before the probe starts the shared bucket's pause does the refusing; nothing here.
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();

        clock.advanceNanos(2 * S);

        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.code()).isEqualTo("deployment_probing");
            assertThat(r.retryAfterMillis()).isEqualTo(1_000);
            assertThat(r.message()).isEqualTo("Deployment dep is being probed after the provider answered 503 "
                    + "(overloaded): one request goes first to see whether the provider has recovered; retry in 1.0 s.");
        });
        // The holder's publication goes stale (it stopped, or its probe was answered): admission as before.
        clock.advanceNanos(8 * S);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
    }

    @Test
    void ofTwoReplicasProbingTheOneOfTheFirstIdProbesForTheFleet() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController first = attach(g, NO_RAMP, 0.9);
        QuotaGovernor g2 = governor(LIMITS);
        AdaptiveController second = attach(g2, NO_RAMP, 0.9);
        first.onSignal(unavailableForAnHour(), 0);
        second.onSignal(unavailableForAnHour(), 0);
        first.fleet(second.published("r1"), "r0", clock.nanos() + 120 * S);
        second.fleet(first.published("r0"), "r1", clock.nanos() + 120 * S);
        clock.setNanos(60 * S);

        assertThat(first.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        assertThat(second.screen(TrafficClass.INTERACTIVE, clock.nanos()))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo("deployment_probing"));
        assertThat(first.published("r0").probe().orElseThrow().startsInNanos()).isZero();
    }

    @Test
    void theOtherReplicasSuccessesRecoverThisReplicasCutAsItsOwnWould() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isEqualTo(0.65);

        // Ten successes elsewhere in the fleet: ten steps of +0.03, as ten of its own would be.
        c.fleetSuccesses(10);

        assertThat(c.snapshot().multipliers().get(Dimension.REQUESTS)).isCloseTo(0.95, within(1e-9));
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.95, within(1e-9));
        // Only its own answers count in what it publishes.
        assertThat(c.successes()).isZero();
        c.onSignal(Signals.success(), 100 * MS);
        assertThat(c.successes()).isOne();
    }

    @Test
    void fleetStatesMergeToTheMostSevereModeItsDepthAndTheProbeOfTheFirstHolder() {
        FleetAdaptive.Probe p1 = new FleetAdaptive.Probe(0, "r1", "a");
        FleetAdaptive.Probe p2 = new FleetAdaptive.Probe(5, "r2", "b");
        FleetAdaptive deep = new FleetAdaptive(Mode.LOAD_SHEDDING, true, Optional.of(p2));
        FleetAdaptive brownout = new FleetAdaptive(Mode.BROWNOUT, false, Optional.of(p1));

        assertThat(deep.merge(brownout)).isEqualTo(new FleetAdaptive(Mode.LOAD_SHEDDING, true, Optional.of(p1)));
        assertThat(brownout.merge(deep)).isEqualTo(deep.merge(brownout));
        assertThat(FleetAdaptive.CALM.merge(FleetAdaptive.CALM)).isEqualTo(FleetAdaptive.CALM);
        // Of two replicas' protected callers, the later one (asked the fewest nanoseconds ago) counts.
        assertThat(new FleetAdaptive(Mode.NORMAL, false, Optional.empty(), 7 * S)
                .merge(new FleetAdaptive(Mode.NORMAL, false, Optional.empty(), 2 * S)).protectedAskedAgoNanos())
                .isEqualTo(2 * S);
        assertThat(deep.merge(brownout).protectedAskedAgoNanos()).isEqualTo(FleetAdaptive.NEVER);
        // Deep shedding means nothing outside load shedding.
        assertThat(new FleetAdaptive(Mode.BROWNOUT, true, Optional.empty()).shedDeep()).isFalse();
    }

    @Test
    void whileSheddingWithNoCriticalOrInteractiveCallerWithinTheWindowBatchIsPacedNotRefused() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        assertThat(c.mode()).isEqualTo(Mode.LOAD_SHEDDING);
        // Nobody shedding would protect has asked: refusing batch would only take it out of the fair queue.
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        // An interactive caller asks: from then on, for a window, batch is shed again.
        c.screen(TrafficClass.INTERACTIVE, clock.nanos());
        clock.advanceMillis(29_000);
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos()))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo("load_shedding_non_critical"));
    }

    @Test
    void whileSheddingBatchIsRefusedWhileAnInteractiveCallerAskedAnotherReplicaWithinTheWindow() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        // No caller here, but another replica's interactive caller asked 28 s before its publication was read.
        c.fleet(new FleetAdaptive(Mode.NORMAL, false, Optional.empty(), 28 * S), "r1", clock.nanos() + 10 * S);

        assertThat(c.screen(TrafficClass.BATCH, clock.nanos()))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo("load_shedding_non_critical"));
        // The same 30 s window as a caller of its own: past it, batch is paced again though the reading stands.
        clock.advanceMillis(2_001);
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
    }

    @Test
    void aReplicaPublishesHowLongAgoAProtectedCallerAskedWithinTheWindow() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        assertThat(c.published("r0").protectedAskedAgoNanos()).isEqualTo(FleetAdaptive.NEVER);
        // Batch is not whom shedding protects.
        c.screen(TrafficClass.BATCH, clock.nanos());
        assertThat(c.published("r0").protectedAskedAgoNanos()).isEqualTo(FleetAdaptive.NEVER);

        c.screen(TrafficClass.CRITICAL, clock.nanos());
        clock.advanceMillis(2_000);
        assertThat(c.published("r0").protectedAskedAgoNanos()).isEqualTo(2 * S);
        clock.advanceMillis(28_001);
        assertThat(c.published("r0").protectedAskedAgoNanos()).isEqualTo(FleetAdaptive.NEVER);
    }

    @Test
    void queuePressureAloneNeverHoldsLoadShedding() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        clock.setNanos(25 * S);
        for (int i = 0; i < 20; i++) {
            c.onQueueRefused(TrafficClass.INTERACTIVE);
        }
        // At 35 s the refusals of 0-2 s have left the window; the interactive queue is still full.
        clock.setNanos(35 * S);
        c.tick();
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(eventsOf(ModeTransition.class).getLast().reason()).contains("queue pressure 1.00");
    }

    @Test
    void interactiveIsShedOnlyWhenThreeMoreRefusalsArriveWithinTenSecondsOfShedding() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        // Shedding since 2 s; two more fresh refusals are not yet three.
        for (int i = 0; i < 2; i++) {
            c.onSignal(Signals.limited(), 0);
            clock.advanceMillis(1_000);
        }
        c.tick();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        c.onSignal(Signals.limited(), 0);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.code()).isEqualTo("load_shedding_non_critical");
            assertThat(r.message()).contains("only critical requests are served for now");
        });
        assertThat(c.screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
    }

    @Test
    void refusalsOfBatchWorkQueuedBeforeSheddingDoNotShedInteractive() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.limited(), 0, Optional.of(TrafficClass.BATCH));
            clock.advanceMillis(1_000);
        }
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.limited(), 0, Optional.of(TrafficClass.INTERACTIVE));
            clock.advanceMillis(1_000);
        }
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isPresent();
    }

    @Test
    void oneInputTokens429OnAOneSecondWindowPausesInputTokensForOneSecondAndDoesNotShed() {
        Limits limits = Limits.of(Limit.of(Dimension.REQUESTS, 1_000), Limit.of(Dimension.INPUT_TOKENS, 400_000),
                Limit.of(Dimension.OUTPUT_TOKENS, 80_000));
        QuotaGovernor g = governor(limits);
        // The deployment's input-token window is 1 s.
        AdaptiveController c = attach(g, NO_RAMP.withCooldown(CooldownConfig.defaults().withJitterRatio(0)
                .withRateWindow(Duration.ofSeconds(1))), 0.5);
        // Earlier refusals, eleven seconds apart, have cut the multiplier to its floor.
        for (int i = 0; i < 4; i++) {
            c.onSignal(Signals.limited(Optional.of(LimitKind.INPUT_TOKENS), OptionalLong.of(1_000)), 0);
            clock.advanceMillis(11_000);
        }
        assertThat(c.snapshot().multipliers().get(Dimension.INPUT_TOKENS)).isEqualTo(0.20);
        c.onSignal(Signals.limited(Optional.of(LimitKind.INPUT_TOKENS), OptionalLong.of(60_000)), 0);
        assertThat(state(g, Dimension.INPUT_TOKENS).pausedForNanos()).isEqualTo(S);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isZero();
        assertThat(state(g, Dimension.OUTPUT_TOKENS).pausedForNanos()).isZero();
        // Multiplier 0.20 is below the shedding threshold, but one refusal in ten seconds is not sustained.
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos() + S)).isEmpty();
    }

    /** Three fresh 429s, {@code apartMillis} apart. */
    private AdaptiveController threeFreshRefusals(long apartMillis) {
        AdaptiveController c = attach(governor(LIMITS), NO_RAMP, 0.5);
        for (int i = 0; i < 3; i++) {
            c.onSignal(Signals.limited(), 0);
            clock.advanceMillis(apartMillis);
        }
        return c;
    }

    @Test
    void threeFresh429sWithinTenSecondsEnterLoadShedding() {
        assertThat(threeFreshRefusals(4_500).mode()).isEqualTo(Mode.LOAD_SHEDDING);
    }

    @Test
    void threeFresh429sSpreadOverMoreThanTenSecondsStopAtBrownout() {
        assertThat(threeFreshRefusals(5_001).mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(eventsOf(ModeTransition.class)).extracting(ModeTransition::to)
                .containsExactly(Mode.CAUTION, Mode.BROWNOUT);
    }

    @Test
    void brownoutPausesBackgroundAndTrimsWhatItAdmits() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.limited(), 0);
        clock.advanceMillis(1_000);
        c.onSignal(Signals.limited(), 0);
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(c.screen(TrafficClass.BACKGROUND, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.decision()).isEqualTo(GatewayDecision.SHED_UNDER_PRESSURE);
            assertThat(r.code()).isEqualTo("background_paused_in_brownout");
        });
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        clock.advanceMillis(2_000);
        assertThat(g.admit(request(TrafficClass.INTERACTIVE)))
                .isInstanceOfSatisfying(Decision.Admitted.class, a -> assertThat(a.brownout()).isTrue());
    }

    @Test
    void modesStepDownOneAtATimeAfterTheDwellOnceTheWindowIsCalm() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = overloaded(g);
        events.clear();
        for (int i = 0; i < 30; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        clock.setNanos(40 * S);
        c.tick();
        clock.setNanos(54 * S);
        c.tick();
        clock.setNanos(55 * S);
        c.tick();
        clock.setNanos(70 * S);
        c.tick();
        assertThat(eventsOf(ModeTransition.class)).extracting(ModeTransition::to, ModeTransition::atNanos)
                .containsExactly(tuple(Mode.BROWNOUT, 40 * S),
                        tuple(Mode.CAUTION, 55 * S),
                        tuple(Mode.NORMAL, 70 * S));
    }

    @Test
    void latencyFarAboveTheBaselineCausesBrownout() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveConfig config = NO_RAMP.withModes(ModeConfig.defaults().withLatencyBaseline(Optional.of(Duration.ofSeconds(1))));
        AdaptiveController c = attach(g, config, 0.5);
        for (int i = 0; i < 20; i++) {
            c.onSignal(Signals.success(), 2_600 * MS);
        }
        c.tick();
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(eventsOf(ModeTransition.class).get(0).reason()).startsWith("latency p95 x2.6");
    }

    @Test
    void interactiveRequestsRunningOutOfTimeBrownOutButNeverShedOnQueuePressureAlone() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        for (int i = 0; i < 20; i++) {
            c.onQueueRefused(TrafficClass.BATCH);
        }
        c.tick();
        assertThat(c.mode()).isEqualTo(Mode.NORMAL);
        for (int i = 0; i < 20; i++) {
            c.onQueueRefused(TrafficClass.INTERACTIVE);
        }
        c.tick();
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
        assertThat(eventsOf(ModeTransition.class).get(0).reason()).isEqualTo("queue pressure 1.00 >= 0.50");
    }

    @Test
    void queueWaitsReachTheControllerThroughTheGovernorListener() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveControllers all = new AdaptiveControllers(g, d -> NO_RAMP, 7);
        g.addListener(all);
        AdaptiveController c = all.controller(DEP);
        Rejection timedOut = new Rejection(GatewayDecision.QUEUED_THEN_TIMED_OUT, "queue_wait_exceeded",
                Optional.empty(), Optional.empty(), 100, true, "timed out");
        Rejection ownQuota = new Rejection(GatewayDecision.QUEUED_THEN_TIMED_OUT, "queue_wait_exceeded",
                Optional.of(Dimension.REQUESTS), Optional.of(Scope.of(ScopeLevel.TENANT, "acme")), 100, true, "mine");
        for (int i = 0; i < 20; i++) {
            all.onDecision(request(TrafficClass.INTERACTIVE), new Decision.Rejected(ownQuota));
        }
        all.tick();
        assertThat(c.mode()).isEqualTo(Mode.NORMAL);
        for (int i = 0; i < 20; i++) {
            all.onDecision(request(TrafficClass.INTERACTIVE), new Decision.Rejected(timedOut));
        }
        all.tick();
        assertThat(c.mode()).isEqualTo(Mode.BROWNOUT);
    }

    @Test
    void waitingForItsOwnTenantsQuotaIsNoPressureOnTheDeployment() {
        // acme may send one request every 250 ms; the deployment has room to spare.
        GovernorConfig config = GovernorConfig.builder().scope(SCOPE, LIMITS)
                .scope(Scope.of(ScopeLevel.TENANT, "acme"), Limits.of(Limit.of(Dimension.REQUESTS, 240, 1))).build();
        QuotaGovernor g = GovernorInvariants.track(new QuotaGovernor(config, new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock));
        AdaptiveControllers all = new AdaptiveControllers(g, d -> NO_RAMP, 7);
        g.addListener(all);
        AdaptiveController c = all.controller(DEP);
        int waitedAdmissions = 0;
        for (int i = 0; i < 20; i++) {
            Decision d = g.admit(request(TrafficClass.INTERACTIVE));
            if (d instanceof Decision.Queued q) {
                clock.advanceMillis(250);
                g.onTimer();
                Decision.Admitted a = (Decision.Admitted) q.outcome().toCompletableFuture().getNow(null);
                assertThat(a.queuedNanos()).isEqualTo(250 * MS);
                assertThat(a.sharedWaitNanos()).isZero();
                waitedAdmissions++;
            }
        }
        all.tick();

        assertThat(waitedAdmissions).isEqualTo(19);
        assertThat(c.mode()).isEqualTo(Mode.NORMAL);
    }

    // ---- client-side throttling ----

    @Test
    void clientSideThrottlingIsOffByDefault() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.0);
        staleRefusals(c, 10);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
    }

    @Test
    void clientSideThrottlingRefusesTheShareTheProviderWouldRefuse() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveConfig config = NO_RAMP.withClientThrottle(ClientThrottleConfig.defaults().enable());
        AdaptiveController c = attach(g, config, 0.5);
        staleRefusals(c, 10);
        // 10 attempts, 0 accepted: p = 10/11 > 0.5.
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.decision()).isEqualTo(GatewayDecision.SHED_UNDER_PRESSURE);
            assertThat(r.code()).isEqualTo("client_side_throttled");
        });
        assertThat(c.screen(TrafficClass.CRITICAL, clock.nanos())).isEmpty();
        for (int i = 0; i < 20; i++) {
            c.onSignal(Signals.success(), 100 * MS);
        }
        // 31 attempts (one refused here), 20 accepted: 31 - 2 * 20 < 0.
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
    }

    /** One fresh 429 and then stale ones, so the multiplier stays at 0.65 (caution, which refuses nothing). */
    private void staleRefusals(AdaptiveController c, int n) {
        c.onSignal(Signals.limited(), 0);
        for (int i = 1; i < n; i++) {
            clock.advanceMillis(1);
            c.onSignal(Signals.limited(), S);
        }
        assertThat(c.mode()).isEqualTo(Mode.CAUTION);
        // Past the last refusal's pause (1 s, no jitter above 10%).
        clock.advanceMillis(1_100);
    }

    // ---- ramp ----

    private static final RampConfig FAST_RAMP = RampConfig.defaults().withStages(List.of(0.5, 1.0)).withMinSamples(1)
            .withStageDuration(Duration.ofSeconds(1)).withMaxGrowthPerMinute(0.5);

    /** Runs the ramp to its end: 0.5 until 1 s, then up to 1.0 by 61 s. */
    private AdaptiveController rampedUp(QuotaGovernor g) {
        AdaptiveController c = attach(g, AdaptiveConfig.defaults().withRamp(FAST_RAMP), 0.0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
        c.onSignal(Signals.success(), 100 * MS);
        clock.setNanos(S);
        c.tick();
        clock.setNanos(31 * S);
        c.tick();
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.75, within(1e-9));
        clock.setNanos(61 * S);
        c.onSignal(Signals.success(), 100 * MS);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
        return c;
    }

    @Test
    void aLongCooldownSendsTheRampBackBelowTheCutMultiplier() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = rampedUp(g);
        c.onSignal(Signals.limited(Optional.empty(), OptionalLong.of(30_000)), 0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
        assertThat(eventsOf(RampChanged.class).getLast().step().reason()).isEqualTo("paused 30.0 s (rate_limited)");
    }

    @Test
    void aShortCooldownLeavesTheRampAlone() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = rampedUp(g);
        c.onSignal(Signals.limited(Optional.empty(), OptionalLong.of(2_000)), 0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.65, within(1e-9));
    }

    @Test
    void fiveIdleMinutesRearmTheRamp() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = rampedUp(g);
        clock.setNanos(61 * S + 300 * S);
        c.tick();
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(0.5);
    }

    @Test
    void timeoutsAndServerErrorsDoNotMoveTheRate() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.5);
        c.onSignal(Signals.status(SignalStatus.TIMEOUT, 0, ProviderSignal.REASON_TIMEOUT), 30 * S);
        c.onSignal(Signals.status(SignalStatus.SERVER_ERROR, 500, ProviderSignal.REASON_SERVER_ERROR), 0);
        c.onSignal(Signals.status(SignalStatus.CONNECTION_FAILED, 0, ProviderSignal.REASON_CONNECTION_FAILED), 0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isEqualTo(1.0);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isZero();
    }

    @Test
    void anOverloadCutsAndPausesLikeA429() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.0);
        c.onSignal(Signals.overloaded(), 0);
        assertThat(state(g, Dimension.REQUESTS).rateFactor()).isCloseTo(0.65, within(1e-9));
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isEqualTo(S);
    }

    @Test
    void a503AskingForAnHourPausesTheDeploymentForSixtySecondsAtMost() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.9);
        c.onSignal(new ProviderSignal(SignalStatus.OVERLOADED, 503, Optional.empty(), OptionalLong.of(3_600_000),
                true, List.of(), ProviderSignal.REASON_OVERLOADED, 0), 0);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isEqualTo(60 * S);
        assertThat(state(g, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(60 * S);
    }

    private static ProviderSignal unavailableForAnHour() {
        return new ProviderSignal(SignalStatus.OVERLOADED, 503, Optional.empty(), OptionalLong.of(3_600_000), true,
                List.of(), ProviderSignal.REASON_OVERLOADED, 0);
    }

    @Test
    void aPauseLongerThanTheClassMayWaitIsWordedAsTheCooldownItIs() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.9);
        c.onSignal(unavailableForAnHour(), 0);
        clock.advanceMillis(1_000);
        Decision d = g.admit(request(TrafficClass.INTERACTIVE));
        assertThat(d).isInstanceOfSatisfying(Decision.Rejected.class, r -> {
            assertThat(r.rejection().decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
            assertThat(r.rejection().code()).isEqualTo("deployment_cooling_down");
            assertThat(r.rejection().retryAfterMillis()).isEqualTo(59_000);
            assertThat(r.rejection().message()).isEqualTo("Deployment dep is cooling down after the provider answered "
                    + "503 (overloaded); it resumes in 59.0 s, longer than the interactive request may wait (300 ms).");
        });
        // Batch may wait twenty minutes: it queues for the pause's end.
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
    }

    @Test
    void aPauseOnANamedRateIsWordedWithTheRate() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.0);
        c.onSignal(Signals.limited(Optional.of(LimitKind.TOKENS), OptionalLong.of(1_000)), 0);
        assertThat(c.screen(TrafficClass.INTERACTIVE, 0)).hasValueSatisfying(r -> assertThat(r.message())
                .isEqualTo("Deployment dep is cooling down after the provider answered 429 (rate_limited) on tpm; "
                        + "it resumes in 1.0 s, longer than the interactive request may wait (300 ms)."));
        assertThat(c.screen(TrafficClass.CRITICAL, 0)).isEmpty();
    }

    @Test
    void afterAnOverloadsCappedPauseOneProbeGoesFirstUntilTheProviderAnswers() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.9);
        c.onSignal(unavailableForAnHour(), 0);
        clock.setNanos(60 * S);
        // The pause is over: the first request is the probe, the others wait for its answer.
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).hasValueSatisfying(r -> {
            assertThat(r.code()).isEqualTo("deployment_probing");
            assertThat(r.retryAfterMillis()).isEqualTo(1_000);
            assertThat(r.message()).isEqualTo("Deployment dep is being probed after the provider answered 503 "
                    + "(overloaded): one request goes first to see whether the provider has recovered; retry in 1.0 s.");
        });
        // Without an answer a second probe goes one floor (1 s) later.
        clock.setNanos(61 * S);
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.BATCH, clock.nanos())).isPresent();
        c.onSignal(Signals.success(), 100 * MS);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
    }

    @Test
    void aProbeAnsweredByAnotherOverloadPausesAgainAtMostSixtySeconds() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveController c = attach(g, NO_RAMP, 0.9);
        c.onSignal(unavailableForAnHour(), 0);
        clock.setNanos(60 * S);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        clock.setNanos(61 * S);
        c.onSignal(unavailableForAnHour(), S);
        assertThat(state(g, Dimension.REQUESTS).pausedForNanos()).isEqualTo(60 * S);
        clock.setNanos(121 * S);
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos())).isEmpty();
        assertThat(c.screen(TrafficClass.INTERACTIVE, clock.nanos()))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo("deployment_probing"));
    }

    @Test
    void theRegistrySeedsEachDeploymentReproducibly() {
        QuotaGovernor g = governor(LIMITS);
        AdaptiveControllers a = new AdaptiveControllers(g, d -> NO_RAMP, 42);
        a.controller(DEP).onSignal(Signals.limited(), 0);
        long first = state(g, Dimension.REQUESTS).pausedForNanos();
        QuotaGovernor g2 = governor(LIMITS);
        AdaptiveControllers b = new AdaptiveControllers(g2, d -> NO_RAMP, 42);
        b.controller(DEP).onSignal(Signals.limited(), 0);
        assertThat(state(g2, Dimension.REQUESTS).pausedForNanos()).isEqualTo(first).isBetween(S, 1_100 * MS);
    }
}
