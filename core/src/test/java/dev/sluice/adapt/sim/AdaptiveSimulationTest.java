package dev.sluice.adapt.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.Mode;
import dev.sluice.adapt.ModeTransition;
import dev.sluice.adapt.MultiplierConfig;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.ramp.RampConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The adaptive controller against a simulated provider that enforces its limits, in virtual time.
 * The deployment is configured for 1,200 RPM and 900,000 TPM; a request takes 600 input and 400
 * output tokens, so tokens bind at 15 requests per second. Every run is repeated with three seeds;
 * the seed and a timeline of the run are in every failure message.
 */
class AdaptiveSimulationTest {

    private static final long RPM = 1_200;
    private static final long TPM = 900_000;
    private static final double CAPACITY = TPM / 60.0 / (Simulation.INPUT_TOKENS + Simulation.OUTPUT_TOKENS);

    @ParameterizedTest(name = "seed {0}, limit figures {1}")
    @CsvSource({"1, true", "2, true", "3, true", "1, false", "2, false", "3, false"})
    void aLimitCutInHalfIsFollowedWithin30Seconds(long seed, boolean headers) {
        SimProvider provider = new SimProvider(RPM, TPM, headers, false, seed);
        Simulation sim = new Simulation(seed, RPM, TPM, provider, AdaptiveConfig.defaults(), 360)
                .arrivals(t -> 1.2 * CAPACITY)
                // The harshest cut: the provider's buckets are emptied too, nothing absorbs the change.
                .at(180, () -> provider.setLimits(RPM / 2, TPM / 2, 180_000_000_000L, true))
                .run(360);
        String timeline = sim.timeline(360, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.refusedRatio(150, 180)).as(timeline).isLessThan(0.01);
        assertThat(sim.refusedRatio(210, 360)).as(timeline).isLessThan(0.01);
        // It follows the provider down without overreacting: at least 90% of the new capacity is used.
        assertThat(sim.throughput(240, 360)).as(timeline).isGreaterThan(0.9 * CAPACITY / 2);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aLimitCutInHalfReadFromOpenAiHeadersThroughTheNormaliser(long seed) {
        SimProvider provider = new SimProvider(RPM, TPM, true, false, seed).wire();
        Simulation sim = new Simulation(seed, RPM, TPM, provider, AdaptiveConfig.defaults(), 300)
                .arrivals(t -> 1.2 * CAPACITY)
                .at(180, () -> provider.setLimits(RPM / 2, TPM / 2, 180_000_000_000L, true))
                .run(300);
        String timeline = sim.timeline(300, 10);
        assertThat(sim.refusedRatio(210, 300)).as(timeline).isLessThan(0.01);
        assertThat(sim.controller.snapshot().observedLimitFactors()).as(timeline)
                .containsEntry(Dimension.REQUESTS, 0.5).containsEntry(Dimension.TOTAL_TOKENS, 0.5);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aColdStartFromIdleTo150PercentStaysUnderOnePercent429s(long seed) {
        SimProvider provider = new SimProvider(RPM, TPM, true, true, seed);
        Simulation sim = new Simulation(seed, RPM, TPM, provider, AdaptiveConfig.defaults(), 300)
                .arrivals(t -> t < 20 ? 0 : 1.5 * CAPACITY)
                .run(300);
        String timeline = sim.timeline(300, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.refusedRatio(0, 300)).as(timeline).isLessThan(0.01);
        // And it reaches the full rate: the ramp ends.
        assertThat(sim.throughput(240, 300)).as(timeline).isGreaterThan(0.9 * CAPACITY);
    }

    /**
     * Without limit figures, a refusal met while the ramp held the rate once taught a headerless
     * ceiling from the ramp's own pace (a quarter of the limit) and the deployment spent the rest
     * of the run climbing back at 5% a minute. The refusal is the ramp's: it steps back and climbs
     * again, and the deployment ends at the full rate.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aHeaderlessColdStartWhoseRampMeetsRefusalsStillEndsAtTheFullRate(long seed) {
        SimProvider provider = new SimProvider(RPM, TPM, false, true, seed);
        Simulation sim = new Simulation(seed, RPM, TPM, provider, AdaptiveConfig.defaults(), 300)
                .arrivals(t -> t < 20 ? 0 : 1.5 * CAPACITY)
                .run(300);
        String timeline = sim.timeline(300, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.controller.snapshot().ceiling()).as(timeline).isGreaterThan(0.9);
        assertThat(sim.throughput(240, 300)).as(timeline).isGreaterThan(0.9 * CAPACITY);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void withoutTheRampTheSameColdStartBurstsInto429s(long seed) {
        SimProvider provider = new SimProvider(RPM, TPM, true, true, seed);
        AdaptiveConfig noRamp = AdaptiveConfig.defaults().withRamp(RampConfig.disabled());
        // A ten-second request burst (as one might configure for Azure's 10 s windows) lets the jump
        // through at once; the default one-second burst alone already paces it.
        Simulation sim = new Simulation(seed, dev.sluice.limits.Limit.of(dev.sluice.limits.Dimension.REQUESTS, RPM,
                RPM / 6), TPM, provider, noRamp, 60)
                .arrivals(t -> t < 20 ? 0 : 1.5 * CAPACITY)
                .run(60);
        assertThat(sim.refusedRatio(20, 40)).as(sim.timeline(60, 5)).isGreaterThan(0.05);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aScriptedOverloadMovesNormalBrownoutSheddingNormalWithoutFlapping(long seed) {
        SimProvider provider = new SimProvider(RPM, TPM, true, false, seed)
                .latency(t -> t >= 60 && t < 150 ? 3.0 : 1.0)
                .overload(t -> t >= 100 && t < 150 ? 0.5 : 0.0);
        AdaptiveConfig config = AdaptiveConfig.defaults().withRamp(RampConfig.disabled());
        Simulation sim = new Simulation(seed, RPM, TPM, provider, config, 300)
                .mix(Map.of(TrafficClass.CRITICAL, 0.2, TrafficClass.INTERACTIVE, 0.6, TrafficClass.BACKGROUND, 0.2))
                .arrivals(t -> 0.5 * CAPACITY)
                .run(300);
        String timeline = sim.timeline(300, 5);
        assertThat(sim.violations()).as(timeline).isEmpty();
        List<Mode> path = new ArrayList<>();
        path.add(Mode.NORMAL);
        sim.transitions.stream().map(ModeTransition::to).forEach(path::add);
        assertThat(path).as(timeline).containsSubsequence(Mode.NORMAL, Mode.BROWNOUT, Mode.LOAD_SHEDDING, Mode.NORMAL);
        // No flapping: severity rises to one peak and then only falls.
        int peak = path.indexOf(Mode.LOAD_SHEDDING);
        for (int i = 1; i < path.size(); i++) {
            boolean rising = i <= peak;
            assertThat(rising ? path.get(i).above(path.get(i - 1)) : path.get(i - 1).above(path.get(i)))
                    .as("transition %d of %s%n%s", i, path, timeline).isTrue();
        }
        assertThat(sim.modeAt(50)).isEqualTo(Mode.NORMAL);
        assertThat(sim.modeAt(95)).as(timeline).isEqualTo(Mode.BROWNOUT);
        assertThat(sim.modeAt(140)).as(timeline).isEqualTo(Mode.LOAD_SHEDDING);
        assertThat(sim.modeAt(299)).as(timeline).isEqualTo(Mode.NORMAL);
        assertThat(sim.shed(100, 150)).as(timeline).isPositive();
    }

    @ParameterizedTest(name = "seed {0}, climb by clean time {1}")
    @CsvSource({"1, true", "2, true", "3, true", "1, false"})
    void aMultiplierCutByAnOverloadIsBackAtTheFullRateWithinTwoMinutesEvenWhenSuccessesHardlyRaiseIt(long seed,
            boolean byCleanTime) {
        // 529s from 30 s to 60 s cut the multiplier to its floor. Each success then adds back only a
        // ten-thousandth, as on a deployment whose answers are rare (long streams at a cut rate): the
        // climb by clean time alone has to bring it back.
        SimProvider provider = new SimProvider(RPM, TPM, true, false, seed).overload(t -> t >= 30 && t < 60 ? 0.5 : 0.0);
        AdaptiveConfig config = AdaptiveConfig.defaults().withRamp(RampConfig.disabled())
                .withMultiplier(new MultiplierConfig(0.65, 0.0001, 0.2, false, Duration.ofSeconds(10),
                        byCleanTime ? MultiplierConfig.DEFAULT_INCREASE_PER_CLEAN_SECOND : 0));
        Simulation sim = new Simulation(seed, RPM, TPM, provider, config, 300).arrivals(t -> 1.2 * CAPACITY).run(300);
        String timeline = sim.timeline(300, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.throughput(50, 60)).as(timeline).isLessThan(0.5 * CAPACITY);
        if (byCleanTime) {
            assertThat(sim.throughput(180, 300)).as(timeline).isGreaterThan(0.9 * CAPACITY);
            assertThat(sim.refusedRatio(180, 300)).as(timeline).isLessThan(0.01);
        } else {
            assertThat(sim.throughput(180, 300)).as(timeline).isLessThan(0.5 * CAPACITY);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aClimbByCleanTimeThatKeepsMeetingTheLimitSlowsDownInsteadOfReenteringItEveryMinute(long seed) {
        // The provider allows 70% of the configured rates and says so in no header; successes add
        // back only a ten-thousandth, so the climb by clean time alone brings the multiplier back
        // after each cut, and each climb ends in refusals at the provider's limit.
        SimProvider provider = new SimProvider(RPM * 7 / 10, TPM * 7 / 10, false, false, seed);
        AdaptiveConfig config = AdaptiveConfig.defaults().withRamp(RampConfig.disabled())
                .withMultiplier(new MultiplierConfig(0.65, 0.0001, 0.2, false, Duration.ofSeconds(10),
                        MultiplierConfig.DEFAULT_INCREASE_PER_CLEAN_SECOND));
        Simulation sim = new Simulation(seed, RPM, TPM, provider, config, 900).arrivals(t -> 1.2 * CAPACITY).run(900);
        String timeline = sim.timeline(900, 30);
        assertThat(sim.violations()).as(timeline).isEmpty();
        // Climbing back at full speed after every cut met the limit 11 times from 120 s to 900 s;
        // halving the climb after each cut that ended one, 5 or 6 times, with the same throughput.
        assertThat(sim.refused(120, 900)).as(timeline).isLessThanOrEqualTo(7);
        assertThat(sim.throughput(120, 900)).as(timeline).isGreaterThan(0.95 * 0.7 * CAPACITY);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void withNoHeadersAtAllTheControllerStillConverges(long seed) {
        // The provider really allows half of what is configured, never says so, and gives no retry delay.
        SimProvider provider = new SimProvider(RPM / 2, TPM / 2, false, false, seed);
        Simulation sim = new Simulation(seed, RPM, TPM, provider, AdaptiveConfig.defaults(), 900)
                .arrivals(t -> 1.2 * CAPACITY)
                .run(900);
        String timeline = sim.timeline(900, 30);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.refusedRatio(300, 900)).as(timeline).isLessThan(0.01);
        assertThat(sim.throughput(300, 900)).as(timeline).isGreaterThan(0.95 * CAPACITY / 2);
        // It found the real limit, half the configured one, from 429s alone: the learned ceiling
        // (the factor itself dips by a cut after each probe past it, so its value at one instant
        // depends on when the last probe was).
        assertThat(sim.controller.snapshot().ceiling()).as(timeline).isBetween(0.45, 0.60);
        assertThat(sim.controller.snapshot().headerless()).isTrue();
    }
}
