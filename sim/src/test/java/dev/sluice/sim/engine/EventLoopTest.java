package dev.sluice.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLoopTest {

    @Test
    void eventsRunInTimeOrderAndTiesInSchedulingOrder() {
        EventLoop loop = new EventLoop();
        List<String> seen = new ArrayList<>();
        loop.at(20, () -> seen.add("b@20"));
        loop.at(10, () -> seen.add("a@10"));
        loop.at(20, () -> seen.add("c@20"));
        loop.at(10, () -> loop.at(10, () -> seen.add("d@10 scheduled at 10")));
        loop.runUntil(100);
        assertThat(seen).containsExactly("a@10", "d@10 scheduled at 10", "b@20", "c@20");
        assertThat(loop.now()).isEqualTo(20);
    }

    @Test
    void clockShowsTheEventTimeAndWallTimeFollows() {
        EventLoop loop = new EventLoop();
        long[] at = new long[1];
        loop.at(3_000_000_000L, () -> at[0] = loop.clock().epochMillis());
        loop.runUntil(Long.MAX_VALUE);
        assertThat(at[0]).isEqualTo(VirtualClock.START.toEpochMilli() + 3_000);
    }

    @Test
    void aTimeInThePastMeansNow() {
        EventLoop loop = new EventLoop();
        List<Long> times = new ArrayList<>();
        loop.at(50, () -> loop.at(10, () -> times.add(loop.now())));
        loop.runUntil(100);
        assertThat(times).containsExactly(50L);
    }

    @Test
    void runWhileStopsWhenTheConditionFails() {
        EventLoop loop = new EventLoop();
        int[] n = new int[1];
        for (int i = 1; i <= 10; i++) {
            loop.at(i, () -> n[0]++);
        }
        assertThat(loop.runWhile(() -> n[0] < 3, 100)).isFalse();
        assertThat(n[0]).isEqualTo(3);
    }

    @Test
    void namedStreamsAreReproducibleAndIndependent() {
        RandomStreams a = new RandomStreams(9);
        RandomStreams b = new RandomStreams(9);
        assertThat(a.stream("x").nextLong()).isEqualTo(b.stream("x").nextLong());
        assertThat(a.stream("x").nextLong()).isNotEqualTo(a.stream("y").nextLong());
        assertThat(new RandomStreams(10).stream("x").nextLong()).isNotEqualTo(a.stream("x").nextLong());
    }
}
