package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Bounded memory's short form, run with the tests: a gateway in a 320 MiB heap of its own is asked
 * by 1,000 clients at once for non-streamed answers of 512 KiB, each written by its provider over 5
 * seconds, half of them translated (500 x 512 KiB = 250 MiB under way at once: held whole without a
 * bound, they do not fit: with the budget raised to 4 GiB the gateway runs out of memory and none is
 * answered; the 128 MiB translation budget makes the rest wait) and half passed on
 * as they arrive. Every request gets one answer (200, or 503 {@code translation_budget_exhausted}),
 * the gateway does not run out of memory, and it ends with nothing in flight and nothing held. The
 * full form (1,000 x 1 MiB in 512 MiB) and its figures: docs/BENCHMARKS.md.
 */
class BoundedMemorySmokeTest {

    @Test
    void aThousandLargeAnswersAtOnceAreEachAnsweredOnceWithinAFixedHeap() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        BoundedMemory.Result r = BoundedMemory.run(1_000, 512 << 10, "320m", 5, 0, 90,
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        String report = printed.toString(StandardCharsets.UTF_8);
        System.out.print(report); // the figures, in the test's output

        assertThat(r.childAlive()).as(report).isTrue();
        assertThat(r.outOfMemory()).as(report).isFalse();
        assertThat(r.unanswered()).as(report).isZero();
        assertThat(r.unexpected()).as(report).isZero();
        assertThat(r.answered()).as(report).isEqualTo(1_000);
        assertThat(r.statuses().getOrDefault("200 relayed", 0L)).as(report).isEqualTo(500);
        assertThat(r.inFlightAfter()).as(report).isZero();
        assertThat(r.heldAfter()).as(report).isZero();
        assertThat(r.duplicates()).as(report).isZero();
        assertThat(r.balanced()).as(report).isTrue();
        assertThat(r.heapMax()).as(report).isEqualTo(320L << 20);
        assertThat(r.livePeak()).as(report).isPositive();
        assertThat(r.rssPeak()).as(report).isPositive();
    }
}
