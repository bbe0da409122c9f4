package dev.sluice.gateway.dashboard;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.time.NanoClock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the last minute of requests added up to, for the dashboard: per tenant, profile, class,
 * deciding scope, provider limit and deployment. Kept as sixty one-second slots on the runtime's
 * clock; a request counts in the second it ended, and drops out sixty seconds later. Rates on
 * the page are these sums: "per minute" means exactly the last sixty seconds.
 *
 * <p>Each request takes one short lock to add a handful of counts (no I/O, no allocation once a
 * name has been seen in the slot); the page reads a merged copy a few times a minute. The
 * Prometheus metrics hold the same facts as counters for ever; this holds them for one minute so
 * that a page with no Prometheus behind it can show rates.
 */
public final class LastMinute implements RequestEventSink {

    /** Slots kept: one minute of seconds. */
    static final int SECONDS = 60;
    /** Upper bounds of the retry-after histogram in milliseconds; a last bucket takes the rest. */
    static final long[] RETRY_AFTER_BOUNDS_MS = {250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000};

    /** Counters per tenant. */
    static final int T_REQUESTS = 0, T_INPUT = 1, T_OUTPUT = 2, T_CACHE_READ = 3, T_REJECTED = 4;
    /** Counters per profile. */
    static final int P_REQUESTS = 0, P_ADMITTED = 1, P_QUEUED = 2, P_REJECTED = 3, P_FALLBACKS = 4,
            P_EST_INPUT = 5, P_USED_INPUT = 6, P_EST_OUTPUT = 7, P_USED_OUTPUT = 8, P_COMPARED = 9, P_OFF_BY_25 = 10;
    /** Counters per class. */
    static final int C_REQUESTS = 0, C_BORROWED = 1, C_QUEUED = 2, C_WAIT_NANOS = 3, C_WAIT_MAX_NANOS = 4,
            C_REJECTED = 5;
    /** Counters per deciding scope and limiter. */
    static final int D_REJECTED = 0, D_QUEUED = 1;
    /** Counters per deployment. */
    static final int DEP_ATTEMPTS = 0, DEP_THROTTLED = 1, DEP_CACHE_UNCOUNTED = 2, DEP_CACHE_COUNTED = 3,
            DEP_INPUT = 4;

    /** A deciding bucket and the dimension it decided on. */
    record Decision(String scope, String limiter) {}

    /** A class's requests on one deployment ({@code none} when the request reached none). */
    record ClassAt(String deployment, String trafficClass) {}

    /** A provider's 429s by the limit it named. */
    record Throttle(String provider, String deployment, String limiter) {}

    /** One second's counts, or (merged) the minute's. */
    static final class Counts {
        final Map<String, long[]> tenants = new HashMap<>();
        final Map<String, long[]> profiles = new HashMap<>();
        final Map<ClassAt, long[]> classes = new HashMap<>();
        final Map<Decision, long[]> decisions = new HashMap<>();
        /** The histogram's counts, {@link #RETRY_AFTER_BOUNDS_MS} and one more, then 429s without a hint. */
        final Map<Throttle, long[]> throttles = new HashMap<>();
        final Map<String, long[]> deployments = new HashMap<>();
        long requests;

        void clear() {
            tenants.clear();
            profiles.clear();
            classes.clear();
            decisions.clear();
            throttles.clear();
            deployments.clear();
            requests = 0;
        }

        void addAll(Counts o) {
            merge(tenants, o.tenants);
            merge(profiles, o.profiles);
            merge(decisions, o.decisions);
            merge(throttles, o.throttles);
            merge(deployments, o.deployments);
            o.classes.forEach((k, v) -> {
                long[] into = classes.computeIfAbsent(k, x -> new long[v.length]);
                for (int i = 0; i < v.length; i++) {
                    into[i] = i == C_WAIT_MAX_NANOS ? Math.max(into[i], v[i]) : into[i] + v[i];
                }
            });
            requests += o.requests;
        }

        private static <K> void merge(Map<K, long[]> into, Map<K, long[]> from) {
            from.forEach((k, v) -> {
                long[] a = into.computeIfAbsent(k, x -> new long[v.length]);
                for (int i = 0; i < v.length; i++) {
                    a[i] += v[i];
                }
            });
        }
    }

    private final NanoClock clock;
    private final Counts[] slots = new Counts[SECONDS];
    private final long[] slotSecond = new long[SECONDS];

    /** A minute measured on {@code clock} (the runtime's). */
    public LastMinute(NanoClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        for (int i = 0; i < SECONDS; i++) {
            slots[i] = new Counts();
            slotSecond[i] = Long.MIN_VALUE;
        }
    }

    @Override
    public void onRequest(RequestEvent e) {
        long second = Math.floorDiv(clock.nanos(), 1_000_000_000L);
        synchronized (this) {
            Counts c = slot(second);
            add(c, e);
        }
    }

    /** The sums over the last sixty seconds, a copy the caller owns. */
    synchronized Counts minute() {
        long now = Math.floorDiv(clock.nanos(), 1_000_000_000L);
        Counts out = new Counts();
        for (int i = 0; i < SECONDS; i++) {
            if (slotSecond[i] != Long.MIN_VALUE && slotSecond[i] > now - SECONDS && slotSecond[i] <= now) {
                out.addAll(slots[i]);
            }
        }
        return out;
    }

    private Counts slot(long second) {
        int i = (int) Math.floorMod(second, (long) SECONDS);
        if (slotSecond[i] != second) {
            slots[i].clear();
            slotSecond[i] = second;
        }
        return slots[i];
    }

    private static void add(Counts c, RequestEvent e) {
        c.requests++;
        boolean rejected = "rejected".equals(e.decision());
        boolean queued = "queued".equals(e.decision());
        e.caller().map(Caller::tenant).ifPresent(t -> {
            long[] a = c.tenants.computeIfAbsent(t, x -> new long[5]);
            a[T_REQUESTS]++;
            a[T_INPUT] += e.usage().input();
            a[T_OUTPUT] += e.usage().output();
            a[T_CACHE_READ] += e.usage().cacheRead();
            if (rejected) {
                a[T_REJECTED]++;
            }
        });
        e.profile().ifPresent(p -> {
            long[] a = c.profiles.computeIfAbsent(p, x -> new long[11]);
            a[P_REQUESTS]++;
            if ("admitted".equals(e.decision())) {
                a[P_ADMITTED]++;
            } else if (queued) {
                a[P_QUEUED]++;
            } else if (rejected) {
                a[P_REJECTED]++;
            }
            if (e.fallback().isPresent()) {
                a[P_FALLBACKS]++;
            }
            // As the metrics do: only a provider's own report says how wrong the estimate was.
            if (e.usageReported() && e.attempts() > 0 && e.status() < 300) {
                long est = e.estimate().input() + e.estimate().cacheRead();
                long used = e.usage().input() + e.usage().cacheRead();
                a[P_EST_INPUT] += est;
                a[P_USED_INPUT] += used;
                a[P_EST_OUTPUT] += e.estimate().output();
                a[P_USED_OUTPUT] += e.usage().output();
                a[P_COMPARED]++;
                if (est > 0 && (used * 4 > est * 5 || used * 4 < est * 3)) {
                    a[P_OFF_BY_25]++;
                }
            }
        });
        e.trafficClass().ifPresent(k -> {
            long[] a = c.classes.computeIfAbsent(new ClassAt(e.deployment().orElse("none"), k), x -> new long[6]);
            a[C_REQUESTS]++;
            if (e.borrowed()) {
                a[C_BORROWED]++;
            }
            if (queued) {
                a[C_QUEUED]++;
                a[C_WAIT_NANOS] += e.queueWaitNanos();
                a[C_WAIT_MAX_NANOS] = Math.max(a[C_WAIT_MAX_NANOS], e.queueWaitNanos());
            }
            if (rejected) {
                a[C_REJECTED]++;
            }
        });
        if (rejected || queued) {
            e.decider().ifPresent(d -> c.decisions.computeIfAbsent(new Decision(d.scope(), d.limiter()),
                    x -> new long[2])[rejected ? D_REJECTED : D_QUEUED]++);
        }
        for (AttemptEvent a : e.attemptEvents()) {
            long[] dep = c.deployments.computeIfAbsent(a.deployment(), x -> new long[5]);
            dep[DEP_ATTEMPTS]++;
            dep[a.cacheReadsCounted() ? DEP_CACHE_COUNTED : DEP_CACHE_UNCOUNTED] += a.usage().cacheRead();
            dep[DEP_INPUT] += a.usage().input() + a.usage().cacheRead();
            if (a.result() == AttemptResult.THROTTLED) {
                dep[DEP_THROTTLED]++;
                long[] h = c.throttles.computeIfAbsent(new Throttle(a.provider(), a.deployment(),
                        a.limitHit().orElse("unknown")), x -> new long[RETRY_AFTER_BOUNDS_MS.length + 2]);
                if (a.providerRetryAfterMillis().isPresent()) {
                    h[bucket(a.providerRetryAfterMillis().getAsLong())]++;
                } else {
                    h[RETRY_AFTER_BOUNDS_MS.length + 1]++;
                }
            }
        }
    }

    /** The histogram bucket of a retry-after hint: the first bound it is within, else the last. */
    static int bucket(long millis) {
        for (int i = 0; i < RETRY_AFTER_BOUNDS_MS.length; i++) {
            if (millis <= RETRY_AFTER_BOUNDS_MS[i]) {
                return i;
            }
        }
        return RETRY_AFTER_BOUNDS_MS.length;
    }

    /** Unused here: the request's event carries its attempts again. */
    @Override
    public void onAttempt(AttemptEvent event) {}
}
