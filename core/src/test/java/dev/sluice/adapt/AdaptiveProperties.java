package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.LimitObservation;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.store.BucketState;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Invariants of the controller under any sequence of answers, figures, ticks and time. */
class AdaptiveProperties {

    private static final Scope SCOPE = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep");
    private static final LimitKind[] KINDS = LimitKind.values();

    @Property(tries = 300)
    void factorsStayInRangeAndPausesBounded(@ForAll @Size(max = 150) List<@IntRange(min = 0, max = 8) Integer> steps,
            @ForAll long seed) {
        FakeClock clock = new FakeClock();
        clock.setNanos(Math.floorMod(seed, 1_000_000_000_000L));
        Limits limits = Limits.of(Limit.of(Dimension.REQUESTS, 600), Limit.of(Dimension.INPUT_TOKENS, 100_000),
                Limit.of(Dimension.TOTAL_TOKENS, 200_000));
        QuotaGovernor g = new QuotaGovernor(GovernorConfig.builder().scope(SCOPE, limits).build(),
                new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock);
        SplittableRandom r = new SplittableRandom(seed);
        AdaptiveConfig config = r.nextBoolean() ? AdaptiveConfig.defaults()
                : AdaptiveConfig.defaults().withMultiplier(new MultiplierConfig(0.5, 0.05, 0.1, true))
                        .withClientThrottle(ClientThrottleConfig.defaults().enable());
        AdaptiveController c = AdaptiveController.attach("dep", config, g, new SplittableRandom(seed));
        long maxPause = config.cooldown().max().toNanos();
        for (int step : steps) {
            long latency = r.nextLong(0, 10_000_000_000L);
            switch (step) {
                case 0 -> c.onSignal(Signals.success(), latency);
                case 1 -> c.onSignal(Signals.limited(hit(r), retry(r)), latency);
                case 2 -> c.onSignal(Signals.overloaded(), latency);
                case 3 -> c.onSignal(Signals.refused(ProviderSignal.REASON_INSUFFICIENT_QUOTA, hit(r), retry(r)), latency);
                case 4 -> c.onSignal(Signals.success(figure(r)), latency);
                case 5 -> c.onSignal(Signals.limited(figure(r), figure(r)), latency);
                case 6 -> c.tick();
                case 7 -> clock.advanceNanos(r.nextLong(0, 120_000_000_000L));
                default -> c.onQueueWait(TrafficClass.INTERACTIVE, r.nextLong(0, 1_000_000_000L), 300_000_000L);
            }
            assertThat(c.screen(TrafficClass.values()[r.nextInt(5)], clock.nanos())).isNotNull();
            BucketState b = g.bucket(SCOPE).orElseThrow();
            for (BucketState.DimensionState d : b.dimensions()) {
                assertThat(d.rateFactor()).isGreaterThan(0).isLessThanOrEqualTo(1.0);
                assertThat(d.pausedForNanos()).isBetween(0L, maxPause);
                assertThat(d.conserved()).isTrue();
            }
            AdaptiveSnapshot s = c.snapshot();
            assertThat(s.ceiling()).isBetween(config.multiplier().floor(), 1.0);
            s.multipliers().values().forEach(m -> assertThat(m).isBetween(config.multiplier().floor(), 1.0));
            s.observedLimitFactors().values().forEach(f -> assertThat(f).isGreaterThan(0).isLessThanOrEqualTo(1.0));
            assertThat(s.throttleProbability()).isBetween(0.0, 1.0);
        }
    }

    private static Optional<LimitKind> hit(SplittableRandom r) {
        return r.nextBoolean() ? Optional.empty() : Optional.of(KINDS[r.nextInt(KINDS.length)]);
    }

    private static OptionalLong retry(SplittableRandom r) {
        return r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(r.nextLong(0, ProviderSignal.MAX_DELAY_MILLIS));
    }

    private static LimitObservation figure(SplittableRandom r) {
        OptionalLong limit = r.nextBoolean() ? OptionalLong.of(r.nextLong(0, 10_000_000)) : OptionalLong.empty();
        OptionalLong remaining = r.nextBoolean() ? OptionalLong.of(r.nextLong(0, 10_000_000)) : OptionalLong.empty();
        return new LimitObservation(KINDS[r.nextInt(KINDS.length)], limit, remaining,
                OptionalLong.of(r.nextLong(0, Duration.ofHours(24).toMillis())), "property");
    }
}
