package dev.sluice.governor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;

/**
 * With any class reserves and any run of arrivals, settlements and passing time: what is held
 * never exceeds a bucket's capacity, and no admission of a class takes the reserve held back
 * from it for a class that asked lately (beyond the one request a full or empty bucket always
 * lets through).
 */
class ReserveProperties {

    private static final Scope DEPLOYMENT = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep");
    private static final long TOKENS = 12_000;
    private static final long SLOTS = 5;

    record Step(long inputTokens, TrafficClass trafficClass, long advanceMillis, boolean settle) {}

    @Provide
    Arbitrary<List<Step>> runs() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.longs().between(0, 4_000),
                Arbitraries.of(TrafficClass.class),
                Arbitraries.longs().between(0, 3_000),
                Arbitraries.of(true, false)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(150);
    }

    @Property(tries = 500)
    void heldNeverExceedsCapacityAndNoClassTakesTheReserveOfAHigherOne(@ForAll("runs") List<Step> steps,
            @ForAll @DoubleRange(min = 0, max = 0.3) double criticalReserve,
            @ForAll @DoubleRange(min = 0, max = 0.4) double interactiveReserve,
            @ForAll @DoubleRange(min = 0, max = 0.2) double batchReserve) {
        GovernorConfig.Builder b = GovernorConfig.builder().scope(DEPLOYMENT,
                Limits.of(Limit.of(Dimension.INPUT_TOKENS, TOKENS, TOKENS), Limit.of(Dimension.CONCURRENT_REQUESTS, SLOTS)));
        var defaults = ClassPolicy.defaults();
        b.classPolicy(TrafficClass.CRITICAL, defaults.get(TrafficClass.CRITICAL).withReserve(criticalReserve));
        b.classPolicy(TrafficClass.INTERACTIVE, defaults.get(TrafficClass.INTERACTIVE).withReserve(interactiveReserve));
        b.classPolicy(TrafficClass.BATCH, defaults.get(TrafficClass.BATCH).withReserve(batchReserve));
        GovernorFixture f = new GovernorFixture(b.build());
        GovernorConfig config = f.governor.config();
        List<String> broken = new ArrayList<>();
        // When each class last asked, exactly; the lane knows it to within a second.
        long[] asked = new long[TrafficClass.values().length];
        java.util.Arrays.fill(asked, Long.MIN_VALUE / 2);
        List<Reservation> open = new ArrayList<>();
        f.governor.addListener(new GovernorListener() {
            @Override
            public void onDecision(AdmissionRequest request, Decision.Final decision) {
                if (!(decision instanceof Decision.Admitted a)) {
                    return;
                }
                open.add(a.reservation());
                // At least the reserves of the higher classes that surely asked within the last minute.
                double h = 0;
                long now = f.clock.nanos();
                for (TrafficClass higher : TrafficClass.values()) {
                    if (higher.outranks(request.trafficClass())
                            && now - asked[higher.ordinal()] < Lane.RESERVE_IDLE_NANOS - 1_000_000_000L) {
                        h += config.classes().get(higher).reserve();
                    }
                }
                long need = request.demand().inputTokens();
                BucketState s = f.governor.bucket(DEPLOYMENT).orElseThrow();
                double tokens = s.of(Dimension.INPUT_TOKENS).orElseThrow().available();
                double slotsFree = s.of(Dimension.CONCURRENT_REQUESTS).orElseThrow().available();
                // A request that takes no tokens leaves the tokens as they were, whoever took them.
                if (need > 0 && tokens < Math.min(h * TOKENS, TOKENS - need) - 1e-6) {
                    broken.add(request.trafficClass() + " left " + tokens + " tokens of a " + h + " reserve");
                }
                if (SLOTS - slotsFree > Math.max(SLOTS - h * SLOTS, 1) + 1e-9) {
                    broken.add(request.trafficClass() + " left " + slotsFree + " slots of a " + h + " reserve");
                }
            }
        });
        for (Step step : steps) {
            asked[step.trafficClass().ordinal()] = f.clock.nanos();
            f.governor.admit(f.request("acme", step.inputTokens(), 0, step.trafficClass()));
            if (step.settle() && !open.isEmpty()) {
                Reservation r = open.removeFirst();
                r.settle(new Usage(r.request().demand().inputTokens(), 0));
            }
            f.clock.advanceMillis(step.advanceMillis());
            f.governor.onTimer();
            BucketState s = f.governor.bucket(DEPLOYMENT).orElseThrow();
            BucketState.DimensionState tokens = s.of(Dimension.INPUT_TOKENS).orElseThrow();
            BucketState.DimensionState slots = s.of(Dimension.CONCURRENT_REQUESTS).orElseThrow();
            // Settled with the estimate: nothing leaves debt, so a rate is never below empty.
            assertThat(tokens.available()).isBetween(-1e-6, (double) TOKENS);
            assertThat(slots.available()).isBetween(0.0, (double) SLOTS);
            assertThat(tokens.conserved()).isTrue();
        }
        assertThat(broken).isEmpty();
    }
}
