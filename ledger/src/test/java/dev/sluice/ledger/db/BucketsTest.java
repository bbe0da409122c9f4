package dev.sluice.ledger.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.api.Test;

class BucketsTest {

    @Test
    void anExactEstimateIsBucketZeroAndStandsForOne() {
        assertThat(Buckets.ratioBucket(1.0)).isZero();
        assertThat(Buckets.ratioOf(0)).isEqualTo(1.0);
        assertThat(Buckets.ratioBucket(2.0)).isEqualTo(8);
        assertThat(Buckets.ratioBucket(0.5)).isEqualTo(-8);
    }

    @Test
    void ratiosBeyondAThousandfoldShareTheOutermostBuckets() {
        assertThat(Buckets.ratioBucket(1e6)).isEqualTo(80);
        assertThat(Buckets.ratioBucket(1e-6)).isEqualTo(-80);
        assertThat(Buckets.ratioBucket(0)).isEqualTo(-80);
    }

    @Property
    void aBucketStandsForItsRatiosToWithinFourAndAHalfPercent(@ForAll @DoubleRange(min = 0.001, max = 1000) @Scale(6) double r) {
        assertThat(Buckets.ratioOf(Buckets.ratioBucket(r)) / r).isCloseTo(1.0, within(0.0443));
    }

    @Test
    void retryAfterBucketsHoldTheirLowerEdgeAndNotTheirUpper() {
        assertThat(Buckets.retryAfterBucket(0)).isZero();
        assertThat(Buckets.retryAfterBucket(99)).isZero();
        assertThat(Buckets.retryAfterBucket(100)).isEqualTo(1);
        assertThat(Buckets.retryAfterUpperEdge(Buckets.retryAfterBucket(1500))).isEqualTo(2000);
        assertThat(Buckets.retryAfterUpperEdge(Buckets.retryAfterBucket(2000))).isEqualTo(5000);
        assertThat(Buckets.retryAfterUpperEdge(Buckets.retryAfterBucket(3_600_000))).isEqualTo(Long.MAX_VALUE);
    }
}
