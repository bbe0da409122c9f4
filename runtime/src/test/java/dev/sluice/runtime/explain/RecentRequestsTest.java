package dev.sluice.runtime.explain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.event.RequestEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring of recent requests: bounded, newest first, the oldest overwritten. */
class RecentRequestsTest {

    @Test
    void holdsTheLastCapacityRequestsNewestFirst() {
        RecentRequests ring = new RecentRequests(3);
        for (int n = 1; n <= 5; n++) {
            ring.onRequest(Requests.answered(n));
        }
        assertThat(ring.newest(10, e -> true)).extracting(RequestEvent::traceId)
                .containsExactly(Requests.trace(5), Requests.trace(4), Requests.trace(3));
        assertThat(ring.byTrace(Requests.trace(2))).as("overwritten").isEmpty();
        assertThat(ring.byTrace(Requests.trace(4))).hasValue(Requests.answered(4));
    }

    @Test
    void aLimitAndAFilterChooseAmongThem() {
        RecentRequests ring = new RecentRequests(8);
        ring.onRequest(Requests.answered(1));
        ring.onRequest(Requests.refusedByTenantRpm(2));
        ring.onRequest(Requests.waitedThenRetried(3));
        ring.onRequest(Requests.refusedByTenantRpm(4));
        List<RequestEvent> rejected = ring.newest(10, RequestExplanation.Filter.REJECTED::accepts);
        assertThat(rejected).extracting(RequestEvent::traceId).containsExactly(Requests.trace(4), Requests.trace(2));
        assertThat(ring.newest(10, RequestExplanation.Filter.SLOW::accepts)).extracting(RequestEvent::traceId)
                .containsExactly(Requests.trace(3));
        assertThat(ring.newest(2, RequestExplanation.Filter.ALL::accepts)).hasSize(2);
    }

    @Test
    void anEmptyRingHoldsNothing() {
        RecentRequests ring = new RecentRequests(4);
        assertThat(ring.newest(10, e -> true)).isEmpty();
        assertThat(ring.byTrace(Requests.trace(1))).isEmpty();
    }
}
