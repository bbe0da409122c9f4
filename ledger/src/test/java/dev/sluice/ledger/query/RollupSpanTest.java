package dev.sluice.ledger.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollupSpanTest {

    static final Instant NOW = Instant.parse("2026-03-02T12:15:00Z");

    static long s(String iso) {
        return Instant.parse(iso).getEpochSecond();
    }

    @Test
    void lessThanADayIsReadFromHoursOnly() {
        RollupSpan span = RollupSpan.of(Window.last(Duration.ofHours(24), NOW), NOW);
        assertThat(span.covered()).isEqualTo(new Window(Instant.parse("2026-03-01T12:00:00Z"),
                Instant.parse("2026-03-02T13:00:00Z")));
        // no whole day: the daily part and the second hourly part are empty, the first is everything
        assertThat(span.dayFrom()).isEqualTo(span.dayTo()).isEqualTo(s("2026-03-02T13:00:00Z"));
    }

    @Test
    void aWeekIsWholeDaysAndTheHoursAroundThem() {
        RollupSpan span = RollupSpan.of(Window.last(Duration.ofDays(7), NOW), NOW);
        assertThat(span.covered().from()).isEqualTo(Instant.parse("2026-02-23T12:00:00Z"));
        assertThat(span.dayFrom()).isEqualTo(s("2026-02-24T00:00:00Z"));
        assertThat(span.dayTo()).isEqualTo(s("2026-03-02T00:00:00Z"));
    }

    @Test
    void beyondTheHourlyRollupsTheStartIsTheDay() {
        RollupSpan span = RollupSpan.of(Window.last(Duration.ofDays(90), NOW), NOW);
        assertThat(span.covered().from()).isEqualTo(Instant.parse("2025-12-02T00:00:00Z"));
        assertThat(span.dayFrom()).isEqualTo(s("2025-12-02T00:00:00Z"));
    }

    @Test
    void aWindowOnHourBoundariesIsNotWidened() {
        Window w = new Window(Instant.parse("2026-03-02T09:00:00Z"), Instant.parse("2026-03-02T11:00:00Z"));
        assertThat(RollupSpan.of(w, NOW).covered()).isEqualTo(w);
        Window late = new Window(Instant.parse("2026-03-02T09:00:00Z"), Instant.parse("2026-03-02T11:00:00.001Z"));
        assertThat(RollupSpan.of(late, NOW).covered().to()).isEqualTo(Instant.parse("2026-03-02T12:00:00Z"));
    }

    @Test
    void quantilesAreNearestRank() {
        List<long[]> buckets = List.of(new long[] {-1, 2}, new long[] {0, 1}, new long[] {1, 1});
        assertThat(LedgerQueries.quantile(buckets, 4, 0.5)).isEqualTo(-1);
        assertThat(LedgerQueries.quantile(buckets, 4, 0.75)).isZero();
        assertThat(LedgerQueries.quantile(buckets, 4, 0.95)).isEqualTo(1);
        assertThat(LedgerQueries.quantile(buckets, 4, 0.0)).isEqualTo(-1);
    }
}
