package dev.sluice.mock.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever the traffic, the model never admits more than its limits allow. */
class ProviderLimitModelPropertyTest {

    private static final long MS = 1_000_000L;

    record Step(long gapMillis, long input, long maxTokens, long output, boolean completeOldest) {}

    @Provide
    Arbitrary<List<Step>> traffic() {
        Arbitrary<Step> step = Combinators.combine(
                        Arbitraries.longs().between(0, 2_000),
                        Arbitraries.longs().between(0, 3_000),
                        Arbitraries.longs().between(0, 2_000),
                        Arbitraries.longs().between(0, 4_000),
                        Arbitraries.of(true, false))
                .as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(300);
    }

    @Property(tries = 200)
    void admittedInputNeverExceedsAFullBucketPlusItsRefill(@ForAll("traffic") List<Step> steps) {
        long capacity = 10_000;
        var model = new ProviderLimitModel(ProviderLimits.builder().inputTpm(capacity).build());
        long now = 0;
        long admitted = 0;
        for (Step s : steps) {
            now += s.gapMillis() * MS;
            if (model.tryAdmit("t", s.input(), 0, s.maxTokens(), now) instanceof Admission.Accepted) {
                admitted += s.input();
            }
            assertThat((double) admitted).isLessThanOrEqualTo(capacity + (double) capacity * now / 60_000_000_000L + 1e-6);
        }
    }

    @Property(tries = 200)
    void noRequestWindowAdmitsMoreThanItsAllowanceAndConcurrencyHolds(@ForAll("traffic") List<Step> steps) {
        var limits = ProviderLimits.builder()
                .rpm(120).requestWindow(Duration.ofSeconds(5)).maxConcurrency(4).tpm(20_000).build();
        var model = new ProviderLimitModel(limits);
        Map<Long, Integer> perWindow = new HashMap<>();
        ArrayDeque<Ticket> open = new ArrayDeque<>();
        long now = 0;
        for (Step s : steps) {
            now += s.gapMillis() * MS;
            if (s.completeOldest() && !open.isEmpty()) {
                model.complete(open.removeFirst(), s.output(), now);
            }
            if (model.tryAdmit("t", s.input(), 0, s.maxTokens(), now) instanceof Admission.Accepted a) {
                open.addLast(a.ticket());
                perWindow.merge(now / (5_000 * MS), 1, Integer::sum);
            }
            assertThat(perWindow.values()).allMatch(n -> n <= 10);
            assertThat(model.inFlight()).isEqualTo(open.size()).isLessThanOrEqualTo(4);
            for (Gauge g : model.snapshot(now).gauges().values()) {
                assertThat(g.remaining()).isBetween(0L, g.limit());
            }
        }
    }
}
