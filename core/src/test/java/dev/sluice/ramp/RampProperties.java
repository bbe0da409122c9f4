package dev.sluice.ramp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The ramp never rises faster than its growth ceiling, whatever it is told. */
class RampProperties {

    @Property(tries = 300)
    void theFractionNeverGrowsFasterThanTheCeiling(
            @ForAll @Size(max = 300) List<@IntRange(min = 0, max = 4) Integer> steps, @ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        RampConfig config = RampConfig.defaults().withMinSamples(1 + r.nextInt(5));
        long now = 0;
        RampGovernor ramp = new RampGovernor(config, now);
        double before = ramp.fraction(now);
        for (int step : steps) {
            long later = now;
            switch (step) {
                case 0 -> ramp.record(r.nextInt(50) == 0, r.nextLong(1, 5_000_000_000L), now);
                case 1 -> ramp.evaluate(now, r.nextBoolean());
                case 2 -> ramp.restartAtOrBelow(r.nextDouble(), "test", now);
                default -> later = now + r.nextLong(0, 30_000_000_000L);
            }
            double after = ramp.fraction(later);
            double allowed = config.maxGrowthPerMinute() * (later - now) / 60e9;
            assertThat(after - before).isLessThanOrEqualTo(allowed + 1e-9);
            assertThat(after).isBetween(config.stage(0), 1.0);
            now = later;
            before = after;
        }
    }
}
