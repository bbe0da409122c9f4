package dev.sluice.runtime.event;

import java.util.List;

/**
 * Where request and attempt events go: the usage ledger, metrics, the access log, the dashboard.
 * Called on the thread that ended the attempt or the request (an event loop in the gateway):
 * implementations must be quick and must not block; anything slow is handed to a thread of their
 * own. An implementation that throws is not called again for that event and never breaks a request.
 */
public interface RequestEventSink {

    /** Events that go nowhere; a lifecycle that sees it builds no event at all. */
    RequestEventSink NONE = e -> {};

    /** An attempt ended. Its request's event follows later and carries it again. */
    default void onAttempt(AttemptEvent event) {}

    /** A request ended: its answer is gone, or its client is. */
    void onRequest(RequestEvent event);

    /** Events that go nowhere. */
    static RequestEventSink none() {
        return NONE;
    }

    /**
     * Every event to each of {@code sinks}, in order; one that throws does not stop the others, nor
     * the request that emitted the event.
     */
    static RequestEventSink all(List<RequestEventSink> sinks) {
        List<RequestEventSink> copy = List.copyOf(sinks);
        if (copy.isEmpty()) {
            return none();
        }
        // One sink is guarded too: the lifecycle emits as it counts an answer, and a consumer's throw there
        // would leave the request uncounted (the ledger unbalanced).
        return new RequestEventSink() {
            @Override
            public void onAttempt(AttemptEvent event) {
                for (RequestEventSink s : copy) {
                    try {
                        s.onAttempt(event);
                    } catch (RuntimeException e) {
                        // a consumer's failure must not break the request or the other consumers
                    }
                }
            }

            @Override
            public void onRequest(RequestEvent event) {
                for (RequestEventSink s : copy) {
                    try {
                        s.onRequest(event);
                    } catch (RuntimeException e) {
                        // as above
                    }
                }
            }
        };
    }
}
