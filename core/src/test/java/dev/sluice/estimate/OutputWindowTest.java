package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How fresh the output history's summary is: exact while small, never more than a 32nd behind. */
class OutputWindowTest {

    private static final long HOUR = Duration.ofHours(1).toNanos();

    private static OutputWindow window(int samplesPerWindow) {
        return new OutputWindow(EstimatorConfig.builder().outputWindowSamples(samplesPerWindow).build(), 0);
    }

    @Test
    void everySampleShowsWhileTheHistoryIsSmall() {
        OutputWindow w = window(1_000);
        for (int i = 1; i <= 63; i++) {
            w.record(100 * i, i);
            assertThat(w.summary(i).samples()).isEqualTo(i);
        }
        assertThat(w.summary(63).p50()).isBetween(3_150L, 3_250L);
    }

    @Test
    void aLargerHistoryIsSummarisedAgainBeforeItGrowsByA32nd() {
        OutputWindow w = window(100_000);
        long lastSeen = 0;
        for (int i = 1; i <= 20_000; i++) {
            w.record(50, i);
            long shown = w.summary(i).samples();
            assertThat(i - shown).isLessThanOrEqualTo(Math.max(0, shown / 32));
            assertThat(shown).isGreaterThanOrEqualTo(lastSeen);
            lastSeen = shown;
        }
        assertThat(lastSeen).isLessThan(20_000);
    }

    @Test
    void aReportCountsEverySample() {
        OutputWindow w = window(100_000);
        for (int i = 1; i <= 5_000; i++) {
            w.record(10, i);
        }
        assertThat(w.exactSummary(5_000).samples()).isEqualTo(5_000);
        assertThat(w.summary(5_000).samples()).isEqualTo(5_000);
    }

    @Test
    void aChangeInAnswersReachesThePercentilesWithinA32ndOfTheSamples() {
        OutputWindow w = window(100_000);
        for (int i = 1; i <= 3_200; i++) {
            w.record(10, i);
        }
        for (int i = 1; i <= 3_300; i++) {
            w.record(1_000, 3_200 + i);
        }
        assertThat(w.summary(6_500).p50()).isGreaterThanOrEqualTo(990);
    }

    @Test
    void aClosingWindowIsSummarisedAtOnce() {
        OutputWindow w = window(200);
        for (int i = 1; i <= 399; i++) {
            w.record(10, i);
        }
        long before = w.summary(399).samples();
        w.record(10, 400); // closes the second window: the first is dropped
        assertThat(w.summary(400).samples()).isEqualTo(200).isNotEqualTo(before);
    }

    @Test
    void anAgedHistoryIsSummarisedAtOnce() {
        OutputWindow w = window(100_000);
        for (int i = 1; i <= 5_000; i++) {
            w.record(10, i);
        }
        w.record(500, 2 * HOUR + 10);
        OutputWindow.Summary s = w.summary(2 * HOUR + 10);
        assertThat(s.samples()).isEqualTo(1);
        assertThat(s.p95()).isBetween(495L, 505L);
    }
}
