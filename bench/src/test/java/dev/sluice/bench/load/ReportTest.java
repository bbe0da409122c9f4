package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** How the report compares Sluice with nginx. */
class ReportTest {

    private static LoadResult result(String target, double perSecond, long p50Micros, double proxyCpu) {
        LoadSpec spec = new LoadSpec(target, "127.0.0.1", 1, "", false, 64, 0, Duration.ZERO, Duration.ofSeconds(10), 1000, 0, false);
        return new LoadResult(spec, (long) (perSecond * 10), 0, 0, 10, p50Micros, p50Micros * 3, p50Micros * 5,
                Optional.empty(), proxyCpu > 0 ? OptionalDouble.of(proxyCpu) : OptionalDouble.empty(), OptionalDouble.empty());
    }

    @Test
    void addedLatencyIsOverDirectCallsAndThroughputIsAShareOfNginx() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("nginx", 8_000, 1_500, 20),
                result("sluice", 6_000, 2_000, 60));

        List<String> rows = Report.comparison(results);

        // nginx adds 0.50 ms, Sluice 1.00 ms: a ratio of 2.00, just within the goal; 6,000 of 8,000 is 75%.
        assertThat(rows).hasSize(3);
        assertThat(rows.get(2)).isEqualTo("| json | 64 | closed | 1.00 | 0.50 | 1.00 | 2.00 (met) | 75% (met) | 3.0× |");
    }

    @Test
    void goalsAreMissedBeyondTwiceTheLatencyOrBelowSeventyPercent() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("nginx", 8_000, 1_500, 20),
                result("sluice", 5_000, 2_100, 60));

        assertThat(Report.comparison(results).get(2)).contains("2.20 (missed)", "63% (missed)");
    }

    @Test
    void theBareProxyIsAShareOfNginxAndSluiceAShareOfIt() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("nginx", 8_000, 1_500, 20),
                result("bare", 6_000, 1_600, 30), result("sluice", 3_000, 2_000, 60));

        List<String> rows = Report.stack(results);

        // 6,000 of nginx's 8,000 is 75%; Sluice's 3,000 is half of the bare stack's 6,000.
        assertThat(rows).hasSize(3);
        assertThat(rows.get(2)).isEqualTo("| json | 64 | closed | 75% | 50% | 30 | 60 |");
        // The nginx comparison does not change with the bare proxy in the results.
        assertThat(Report.comparison(results).get(2)).isEqualTo("| json | 64 | closed | 1.00 | 0.50 | 1.00 | 2.00 (met) | 38% (missed) | 3.0× |");
    }

    @Test
    void withoutBareProxyRowsThereIsNoStackTable() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("nginx", 8_000, 1_500, 20),
                result("sluice", 6_000, 2_000, 60));

        assertThat(Report.stack(results)).isEmpty();
        assertThat(Report.markdown("test", List.of(), results)).doesNotContain("bare proxy");
    }

    @Test
    void withoutNginxOrSluiceTheirColumnsAreDashes() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("bare", 6_000, 1_600, 30));

        assertThat(Report.stack(results).get(2)).isEqualTo("| json | 64 | closed | - | - | 30 | - |");
    }

    @Test
    void withoutNginxSluiceIsComparedWithDirectCalls() {
        List<LoadResult> results = List.of(result("direct", 10_000, 1_000, 0), result("sluice", 6_000, 2_000, 60));

        assertThat(Report.comparison(results).get(2)).isEqualTo("| json | 64 | closed | 1.00 | 1.00 | 60% |");
    }
}
