package dev.sluice.runtime.alert;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per deployment, the attempts, provider 429s and estimated against reported input since the
 * alert rules last looked: the one part of their readings that comes from events. On the request's
 * way it costs a map lookup and a few uncontended adds per attempt, no lock and no allocation once
 * a deployment has been seen.
 */
public final class AttemptTally implements RequestEventSink {

    /** Counts of one deployment since the last {@link #take}. */
    public record Counts(long attempts, long throttled, long estimatedInput, long actualInput) {
        public static final Counts NONE = new Counts(0, 0, 0, 0);
    }

    private static final class Adders {
        final LongAdder attempts = new LongAdder();
        final LongAdder throttled = new LongAdder();
        final LongAdder estimated = new LongAdder();
        final LongAdder actual = new LongAdder();
    }

    private final Map<String, Adders> byDeployment = new ConcurrentHashMap<>();

    @Override
    public void onAttempt(AttemptEvent e) {
        if (e.result() == AttemptResult.NEVER_SENT || e.result() == AttemptResult.CLIENT_GONE) {
            return;
        }
        Adders a = byDeployment.computeIfAbsent(e.deployment(), k -> new Adders());
        a.attempts.increment();
        if (e.result() == AttemptResult.THROTTLED) {
            a.throttled.increment();
        }
        if (e.usageReported() && e.result() == AttemptResult.ANSWERED) {
            a.estimated.add(e.estimate().input());
            a.actual.add(e.usage().input() + (e.cacheReadsCounted() ? e.usage().cacheRead() : 0));
        }
    }

    @Override
    public void onRequest(RequestEvent event) {}

    /** The counts of {@code deployment} since the last take, which start again from zero. */
    public Counts take(String deployment) {
        Adders a = byDeployment.get(deployment);
        if (a == null) {
            return Counts.NONE;
        }
        return new Counts(a.attempts.sumThenReset(), a.throttled.sumThenReset(), a.estimated.sumThenReset(),
                a.actual.sumThenReset());
    }
}
