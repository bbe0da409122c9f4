package dev.sluice.runtime.rollout;

import dev.sluice.governor.QuotaGovernor;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.runtime.config.WarmupConfig;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.time.NanoClock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A runtime's warm-ups ({@code warmups:}): each tenant's job paced by the governor while it warms
 * up. It starts a warm-up at its time of day (on the runtime's {@link #tick}) or at the tenant's
 * first request after a quiet spell ({@link #onArrival}, asked before admission), then applies its
 * rates to the tenant's buckets ({@link QuotaGovernor#pace}: a request beyond them waits in its
 * queue like any limit's, rather than meeting the provider's acceleration limit), judges each
 * minute from the tenant's attempts (it is a {@link RequestEventSink}) and tells its listeners
 * every decision. The warm-ups are read when the runtime is built.
 */
public final class Warmups implements RequestEventSink {

    private final NanoClock clock;
    private final QuotaGovernor governor;
    private final ZoneId zone;
    private final Map<String, Entry> byId = new LinkedHashMap<>();
    private final Map<String, Entry> byTenant = new java.util.HashMap<>();
    private final List<Consumer<WarmupDecision>> listeners = new CopyOnWriteArrayList<>();

    private static final class Entry {
        final Warmup warmup;
        final Scope scope;
        long lastArrival = Long.MIN_VALUE;
        /** The day (in the reset zone) a scheduled warm-up last started. */
        LocalDate startedOn = LocalDate.MIN;

        Entry(Warmup warmup, Scope scope) {
            this.warmup = warmup;
            this.scope = scope;
        }
    }

    public Warmups(SluiceConfig config, NanoClock clock, QuotaGovernor governor) {
        this.clock = clock;
        this.governor = governor;
        this.zone = config.dailyResetZone();
        for (WarmupConfig w : config.warmups()) {
            TenantConfig t = config.tenants().stream().filter(x -> x.id().equals(w.tenant())).findFirst().orElseThrow();
            Map<Dimension, Long> limits = new EnumMap<>(Dimension.class);
            for (Dimension d : w.maxGrowthPerMinute().keySet()) {
                limits.put(d, t.limits().get(d).map(Limit::amount).orElseThrow());
            }
            Entry e = new Entry(new Warmup(w, limits), Scope.of(ScopeLevel.TENANT, w.tenant()));
            byId.put(w.id(), e);
            byTenant.put(w.tenant(), e);
        }
    }

    /** Calls {@code listener} with every decision, on the thread that made it. */
    public void onDecision(Consumer<WarmupDecision> listener) {
        listeners.add(listener);
    }

    /**
     * A request of {@code tenant} is about to be admitted: a warm-up that starts on first traffic
     * starts now when the tenant was quiet for {@link WarmupConfig#QUIET} (or never sent one).
     */
    public void onArrival(String tenant) {
        Entry e = byTenant.get(tenant);
        if (e == null) {
            return;
        }
        WarmupDecision d = null;
        synchronized (e) {
            long now = clock.nanos();
            boolean quiet = e.lastArrival == Long.MIN_VALUE || now - e.lastArrival >= WarmupConfig.QUIET.toNanos();
            e.lastArrival = now;
            if (quiet && e.warmup.config().startAt().isEmpty() && !e.warmup.holding()) {
                d = begin(e, now);
            }
        }
        if (d != null) {
            tell(d);
        }
    }

    /** Starts the scheduled warm-ups whose time has come, and judges every minute that ended. */
    public void tick() {
        long now = clock.nanos();
        long epochMillis = clock.epochMillis();
        for (Entry e : byId.values()) {
            WarmupDecision d = null;
            synchronized (e) {
                if (!e.warmup.holding() && e.warmup.config().startAt().isPresent()) {
                    var local = Instant.ofEpochMilli(epochMillis).atZone(zone);
                    var startToday = local.toLocalDate().atTime(e.warmup.config().startAt().get()).atZone(zone);
                    boolean inWindow = !local.isBefore(startToday)
                            && local.isBefore(startToday.plus(e.warmup.config().duration()));
                    if (inWindow && !e.startedOn.equals(local.toLocalDate())) {
                        e.startedOn = local.toLocalDate();
                        d = begin(e, now);
                    }
                } else if (e.warmup.minuteDue(now)) {
                    d = e.warmup.onMinute(now, epochMillis);
                    apply(e);
                }
            }
            if (d != null) {
                tell(d);
            }
        }
    }

    private WarmupDecision begin(Entry e, long now) {
        WarmupDecision d = e.warmup.start(now, clock.epochMillis(), Rollout.ANALYSIS);
        apply(e);
        // From one second's worth, not from a full bucket's burst: an acceleration limit judges seconds.
        for (Dimension dim : e.warmup.factors().keySet()) {
            governor.drain(e.scope, dim, Math.max(1, e.warmup.rate(dim) / 60));
        }
        return d;
    }

    private void apply(Entry e) {
        e.warmup.factors().forEach((d, f) -> governor.pace(e.scope, d, f));
    }

    @Override
    public void onAttempt(AttemptEvent event) {
        // Counted with the request, which names the tenant.
    }

    @Override
    public void onRequest(RequestEvent event) {
        if (event.caller().isEmpty()) {
            return;
        }
        Entry e = byTenant.get(event.caller().get().tenant());
        if (e == null) {
            return;
        }
        synchronized (e) {
            for (AttemptEvent a : event.attemptEvents()) {
                if (a.result() != AttemptResult.NEVER_SENT && a.result() != AttemptResult.CLIENT_GONE) {
                    e.warmup.onAttempt(a.result() == AttemptResult.THROTTLED);
                }
            }
        }
    }

    /** Holds warm-up {@code id}'s rates until an operator resumes it. @throws NoSuchElementException, IllegalStateException */
    public WarmupDecision pause(String id, String by) {
        Entry e = entry(id);
        WarmupDecision d;
        synchronized (e) {
            d = e.warmup.pause(clock.epochMillis(), by);
        }
        tell(d);
        return d;
    }

    /** Lets warm-up {@code id} grow again. */
    public WarmupDecision resume(String id, String by) {
        Entry e = entry(id);
        WarmupDecision d;
        synchronized (e) {
            d = e.warmup.resume(clock.epochMillis(), by);
        }
        tell(d);
        return d;
    }

    /** What a warm-up is doing now. */
    public record View(String id, String tenant, Warmup.Status status, int grown, Map<Dimension, Long> rates,
            List<WarmupDecision> history) {
        public View {
            rates = Map.copyOf(rates);
            history = List.copyOf(history);
        }
    }

    /** Every warm-up now, in the file's order. */
    public List<View> inspect() {
        List<View> out = new ArrayList<>();
        for (Entry e : byId.values()) {
            out.add(view(e));
        }
        return out;
    }

    /** Warm-up {@code id} now. @throws NoSuchElementException for an unknown one */
    public View inspect(String id) {
        return view(entry(id));
    }

    private static View view(Entry e) {
        synchronized (e) {
            Map<Dimension, Long> rates = new EnumMap<>(Dimension.class);
            e.warmup.factors().keySet().forEach(d -> rates.put(d, e.warmup.rate(d)));
            return new View(e.warmup.config().id(), e.warmup.config().tenant(), e.warmup.status(), e.warmup.grown(),
                    rates, e.warmup.history());
        }
    }

    private Entry entry(String id) {
        Entry e = byId.get(id);
        if (e == null) {
            throw new NoSuchElementException("warm-up: \"" + id + "\" (expected: one of " + byId.keySet() + ")");
        }
        return e;
    }

    private void tell(WarmupDecision d) {
        for (Consumer<WarmupDecision> l : listeners) {
            try {
                l.accept(d);
            } catch (RuntimeException ex) {
                // a listener's failure must not stop the warm-up or the other listeners
            }
        }
    }
}
