package dev.sluice.runtime.event;

import java.util.ArrayList;
import java.util.List;

/** An event sink for tests: keeps every request and attempt event, in order. */
public final class RecordingSink implements RequestEventSink {

    public final List<RequestEvent> requests = new ArrayList<>();
    public final List<AttemptEvent> attempts = new ArrayList<>();

    @Override
    public void onAttempt(AttemptEvent e) {
        attempts.add(e);
    }

    @Override
    public void onRequest(RequestEvent e) {
        requests.add(e);
    }
}
