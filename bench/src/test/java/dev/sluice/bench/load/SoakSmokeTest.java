package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The soak's short form, run with the tests: 40 seconds at 50 requests a second through the
 * gateway on the shared Redis (a namespace of its own). Every request is answered, nothing is left
 * in flight, and from the sample after the warm-up to the last the heap left after a full GC and
 * the open file descriptors stay level. The hour-long form and its figures: docs/BENCHMARKS.md.
 */
class SoakSmokeTest {

    @Test
    void aShortSoakAnswersEveryRequestAndKeepsHeapAndDescriptorsLevel() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Soak.Result r = Soak.run(Duration.ofSeconds(40), 50, Duration.ofSeconds(10), Optional.of("redis://127.0.0.1:6379"),
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        String report = printed.toString(StandardCharsets.UTF_8);

        assertThat(r.failed()).as(report).isZero();
        assertThat(r.balanced()).as(report).isTrue();
        // 200, or 503 where the shared Redis did not answer within its command timeout on a busy machine.
        assertThat(r.statuses().keySet()).as(report).allMatch(s -> s == 200 || s == 503);
        assertThat(r.statuses().getOrDefault(200, 0L)).as(report).isPositive();
        assertThat(r.last().gatewayInFlight()).as(report).isZero();
        assertThat(r.last().heapAfterGc() - r.first().heapAfterGc()).as(report).isLessThan(64L << 20);
        assertThat(r.last().openFds() - r.first().openFds()).as(report).isLessThanOrEqualTo(16);
    }
}
