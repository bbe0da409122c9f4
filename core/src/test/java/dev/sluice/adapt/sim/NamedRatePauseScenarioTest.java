package dev.sluice.adapt.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.adapt.AdaptiveConfig;
import dev.sluice.adapt.CooldownStarted;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.ShortWindow;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 429 that names a rate pauses that rate for the refill time of the window it names, not for
 * the provider's announced full refill. The provider really allows 600 RPM of the 1,200 configured,
 * sends no limit figures, and asks every refused request to wait until its ten-second request bucket
 * is full again; demand is 12 requests per second, so requests bind at 10 per second.
 */
class NamedRatePauseScenarioTest {

    private static final long RPM = 1_200;
    private static final long TPM = 900_000;
    private static final double PROVIDER_CAPACITY = RPM / 2 / 60.0;

    private static Simulation run(long seed, Limit requests) {
        SimProvider provider = new SimProvider(RPM / 2, TPM, false, false, seed).fullRefillHints();
        return new Simulation(seed, requests, TPM, provider, AdaptiveConfig.defaults(), 300)
                .arrivals(t -> 1.2 * PROVIDER_CAPACITY)
                .run(300);
    }

    private static long longestRequestPause(Simulation sim) {
        return sim.cooldowns.stream().filter(c -> c.dimensions().equals(java.util.List.of(Dimension.REQUESTS)))
                .mapToLong(CooldownStarted::pauseNanos).max().orElse(0);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void theDefaultOneSecondWindowPausesRequestsAtMostASecondAndKeepsTheProviderBusy(long seed) {
        Simulation sim = run(seed, Limit.windowed(Dimension.REQUESTS, RPM, ShortWindow.DEFAULT));
        String timeline = sim.timeline(300, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        assertThat(sim.cooldowns).as(timeline).isNotEmpty();
        // The window refills in 1 s; 10% jitter on top.
        assertThat(longestRequestPause(sim)).as(timeline).isLessThanOrEqualTo(1_100_000_000L);
        assertThat(sim.throughput(60, 300)).as(timeline).isGreaterThan(0.85 * PROVIDER_CAPACITY);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void aDeclaredTenSecondWindowIsWaitedOutInFull(long seed) {
        Simulation sim = run(seed, Limit.windowed(Dimension.REQUESTS, RPM, ShortWindow.of(Duration.ofSeconds(10))));
        String timeline = sim.timeline(300, 10);
        assertThat(sim.violations()).as(timeline).isEmpty();
        // The hint (up to the provider's 10 s refill) is obeyed: the declared window is that long.
        assertThat(longestRequestPause(sim)).as(timeline).isGreaterThan(5_000_000_000L);
    }
}
