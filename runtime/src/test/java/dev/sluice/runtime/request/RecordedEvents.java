package dev.sluice.runtime.request;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import java.util.ArrayList;
import java.util.List;

/** An event sink that keeps every event it is given, in order, for a test to read. */
final class RecordedEvents implements RequestEventSink {

    final List<RequestEvent> requests = new ArrayList<>();
    final List<AttemptEvent> attempts = new ArrayList<>();

    @Override
    public void onAttempt(AttemptEvent e) {
        attempts.add(e);
    }

    @Override
    public void onRequest(RequestEvent e) {
        requests.add(e);
    }
}
