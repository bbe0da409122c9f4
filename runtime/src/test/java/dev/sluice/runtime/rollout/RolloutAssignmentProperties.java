package dev.sluice.runtime.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.RolloutConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Invariants of a rollout's assignment and of the step's share. */
class RolloutAssignmentProperties {

    @Provide
    Arbitrary<List<Double>> steps() {
        return Arbitraries.integers().between(1, 10_000).set().ofMinSize(1).ofMaxSize(8)
                .map(s -> s.stream().sorted().map(v -> v / 100.0).toList());
    }

    @Property
    void aKeyOnTheTargetStaysThereAsTheRolloutAdvances(@ForAll("steps") List<Double> steps, @ForAll String key,
            @ForAll boolean listed, @ForAll boolean tenantsFirst) {
        RolloutConfig c = RolloutTest.config(steps, tenantsFirst ? List.of("acme") : List.of(), 2);
        int slot = RolloutAssignment.slot(c.id(), key);
        boolean before = false;
        for (RolloutAssignment.Stage s : RolloutAssignment.stages(c)) {
            boolean now = RolloutAssignment.onTarget(s, listed && tenantsFirst, slot);
            assertThat(!before || now).as("key %s left the target at %s", key, s).isTrue();
            before = now;
        }
    }

    @Property
    void theTargetsShareOfEveryMinuteNeverPassesTheStepByMoreThanOneRequest(
            @ForAll @IntRange(min = 1, max = 100) int percent, @ForAll("sizes") List<Long> tokens,
            @ForAll @LongRange(min = 0, max = 10_000) long seed) {
        ShareMeter m = new ShareMeter(Map.of());
        long requests = 0;
        long targetRequests = 0;
        long total = 0;
        long targetTokens = 0;
        long largest = 0;
        for (int i = 0; i < tokens.size(); i++) {
            long t = tokens.get(i);
            boolean assigned = Math.floorMod(RolloutAssignment.slot("r" + seed, "k" + i), 100) < 70;
            requests++;
            total += t;
            if (m.take(1, assigned, percent, t, 0)) {
                targetRequests++;
                targetTokens += t;
                largest = Math.max(largest, t);
            }
        }
        assertThat(targetRequests).isLessThanOrEqualTo((long) Math.floor(percent / 100.0 * requests) + 1);
        assertThat((double) targetTokens).isLessThanOrEqualTo(percent / 100.0 * total + largest);
    }

    @Provide
    Arbitrary<List<Long>> sizes() {
        return Arbitraries.longs().between(1, 20_000).list().ofMinSize(1).ofMaxSize(300);
    }

    @Property
    void theGrowthCeilingIsNeverExceededInAnyMinute(@ForAll @IntRange(min = 1, max = 50) int ceiling,
            @ForAll("perMinute") List<Integer> arrivals) {
        ShareMeter m = new ShareMeter(Map.of(dev.sluice.limits.Dimension.REQUESTS, (long) ceiling));
        long before = 0;
        for (int minute = 0; minute < arrivals.size(); minute++) {
            long taken = 0;
            for (int i = 0; i < arrivals.get(minute); i++) {
                taken += m.take(minute * 60_000_000_000L + i, true, 100, 1, 0) ? 1 : 0;
            }
            assertThat(taken).isLessThanOrEqualTo(before + ceiling);
            before = taken;
        }
    }

    @Provide
    Arbitrary<List<Integer>> perMinute() {
        return Arbitraries.integers().between(0, 400).list().ofMinSize(1).ofMaxSize(10);
    }

    @Example
    void slotsSpreadEvenlySoAStepsShareOfKeysIsItsPercentage() {
        List<Integer> onTarget = new ArrayList<>();
        RolloutAssignment.Stage tenPercent = new RolloutAssignment.Stage(10, 10);
        IntStream.range(0, 20_000).forEach(i -> {
            if (RolloutAssignment.onTarget(tenPercent, false, RolloutAssignment.slot("move", "tenant-" + i))) {
                onTarget.add(i);
            }
        });

        assertThat(onTarget.size()).isBetween(1_850, 2_150);
    }

    @Example
    void withTenantsFirstTheListedWalkEveryStepBeforeTheOthersStart() {
        RolloutConfig c = RolloutTest.config(List.of(10.0, 100.0), List.of("acme"), 2);

        assertThat(RolloutAssignment.stages(c)).containsExactly(new RolloutAssignment.Stage(0, 10),
                new RolloutAssignment.Stage(0, 100), new RolloutAssignment.Stage(10, 100),
                new RolloutAssignment.Stage(100, 100));
    }
}
