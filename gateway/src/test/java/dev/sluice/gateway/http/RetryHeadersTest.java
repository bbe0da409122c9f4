package dev.sluice.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.MultiMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class RetryHeadersTest {

    static MultiMap headers(long ms, boolean retryable) {
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        ErrorBodies.retryHeaders(h, ms, retryable);
        return h;
    }

    @Test
    void secondsAreRoundedUp() {
        MultiMap h = headers(2_400, true);
        assertThat(h.get("retry-after")).isEqualTo("3");
        assertThat(h.get("retry-after-ms")).isEqualTo("2400");
        assertThat(h.get("x-should-retry")).isNull();
    }

    @Test
    void zeroBecomesOneMillisecondAndOneSecond() {
        MultiMap h = headers(0, true);
        assertThat(h.get("retry-after")).isEqualTo("1");
        assertThat(h.get("retry-after-ms")).isEqualTo("1");
    }

    @Test
    void longWaitsAreCappedAtSixtySecondsAndSayDoNotRetry() {
        MultiMap h = headers(3_600_000, true);
        assertThat(h.get("retry-after")).isEqualTo("60");
        assertThat(h.get("retry-after-ms")).isEqualTo("60000");
        assertThat(h.get("x-should-retry")).isEqualTo("false");
    }

    @Test
    void sixtySecondsExactlyIsStillRetryable() {
        assertThat(headers(60_000, true).get("x-should-retry")).isNull();
    }

    @Test
    void notRetryableSaysSo() {
        assertThat(headers(500, false).get("x-should-retry")).isEqualTo("false");
    }

    @Property
    void hintsAreNeverZeroAndNeverAboveSixtySeconds(@ForAll @LongRange(min = -5, max = 100_000_000) long ms) {
        MultiMap h = headers(ms, true);
        assertThat(Long.parseLong(h.get("retry-after"))).isBetween(1L, 60L);
        assertThat(Long.parseLong(h.get("retry-after-ms"))).isBetween(1L, 60_000L);
    }
}
