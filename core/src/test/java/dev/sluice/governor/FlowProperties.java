package dev.sluice.governor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A flow answers "how much is queued before this start tag" from its running sums exactly as
 * walking its waiters would, whatever arrived, was served from the head, left from the middle or
 * timed out before; and times out exactly the waiters whose time has come, in arrival order,
 * whether their give-up times follow arrival order or not.
 */
class FlowProperties {

    enum Kind { ADD, SERVE_HEAD, LEAVE_MIDDLE, EXPIRE }

    record Step(Kind kind, long cost, long giveUpAt, int pick, double probeTag) {}

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.of(Kind.ADD, Kind.ADD, Kind.ADD, Kind.SERVE_HEAD, Kind.LEAVE_MIDDLE, Kind.EXPIRE),
                Arbitraries.longs().between(1, 1_000_000_000L), Arbitraries.longs().between(0, 100),
                Arbitraries.integers().between(0, 1_000), Arbitraries.doubles().between(-10, 400))
                .as(Step::new);
        return step.list().ofMaxSize(200);
    }

    @Property(tries = 500)
    void costBeforeATagIsWhatWalkingTheWaitersGives(@ForAll("histories") List<Step> history,
            @ForAll boolean giveUpInArrivalOrder) {
        Flow flow = new Flow();
        List<Waiter> model = new ArrayList<>();
        double tag = 0;
        long seq = 0;
        long now = 0;
        for (Step s : history) {
            switch (s.kind()) {
                case ADD -> {
                    tag += 1 + s.pick() % 7;
                    // In arrival order as with one class budget, or in any order as with per-request deadlines.
                    Waiter w = waiter(tag, seq++, s.cost(), now + (giveUpInArrivalOrder ? 50 : s.giveUpAt()));
                    flow.addLast(w);
                    model.add(w);
                }
                case SERVE_HEAD -> {
                    if (!model.isEmpty()) {
                        assertThat(flow.remove(model.get(0))).isEqualTo(model.size() == 1);
                        model.remove(0);
                    }
                }
                case LEAVE_MIDDLE -> {
                    if (!model.isEmpty()) {
                        int i = s.pick() % model.size();
                        assertThat(flow.remove(model.get(i))).isEqualTo(i == model.size() - 1);
                        model.remove(i);
                    }
                }
                case EXPIRE -> {
                    now += s.giveUpAt() / 2;
                    long at = now;
                    List<Waiter> left = new ArrayList<>();
                    List<Boolean> lastFlags = new ArrayList<>();
                    long next = flow.removeExpired(at, (w, wasLast) -> {
                        left.add(w);
                        lastFlags.add(wasLast);
                    });
                    List<Waiter> expected = model.stream().filter(w -> w.giveUpAt <= at).toList();
                    assertThat(left).containsExactlyElementsOf(expected);
                    for (int i = 0; i < expected.size(); i++) {
                        assertThat(lastFlags.get(i)).isEqualTo(expected.get(i) == model.get(model.size() - 1));
                    }
                    model.removeAll(expected);
                    assertThat(next).isEqualTo(model.stream().mapToLong(w -> w.giveUpAt).min().orElse(Long.MAX_VALUE));
                }
            }
            assertThat(flow.size()).isEqualTo(model.size());
            assertThat(flow.peekFirst()).isEqualTo(model.isEmpty() ? null : model.get(0));
            assertThat(flow.peekLast()).isEqualTo(model.isEmpty() ? null : model.get(model.size() - 1));
            assertThat(flow.cost()).isEqualTo(model.stream().mapToLong(w -> w.costNanos).sum());
            for (double probe : new double[] {s.probeTag(), tag, tag - 3.5, model.isEmpty() ? 0 : model.get(0).startTag}) {
                assertThat(flow.costUpTo(probe)).as("cost up to tag %s", probe).isEqualTo(walk(model, probe));
            }
        }
    }

    @Test
    void aNewcomerBehindNobodyCountsNothingAndOneBehindEverybodyCountsAll() {
        Flow flow = new Flow();
        flow.addLast(waiter(1, 0, 10, 100));
        flow.addLast(waiter(2, 1, 20, 100));
        flow.addLast(waiter(4, 2, 40, 100));

        assertThat(flow.costUpTo(0.5)).isZero();
        assertThat(flow.costUpTo(2)).isEqualTo(30);
        assertThat(flow.costUpTo(3.9)).isEqualTo(30);
        assertThat(flow.costUpTo(100)).isEqualTo(70);
    }

    /** The reference: walk the flow from its head until a waiter starts after the tag. */
    private static long walk(List<Waiter> flow, double tag) {
        long sum = 0;
        for (Waiter w : flow) {
            if (w.startTag > tag) {
                break;
            }
            sum += w.costNanos;
        }
        return sum;
    }

    private static Waiter waiter(double startTag, long seq, long cost, long giveUpAt) {
        return new Waiter(null, new long[0], null, 0, giveUpAt, startTag, seq, cost);
    }
}
