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
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A runtime's warm-ups ({@code warmups:}): each tenant's job paced by the governor while it warms
 * up. It starts a warm-up at its time of day (on the runtime's {@link #tick}) or at the tenant's
 * first request after a quiet spell ({@link #onArrival}, asked before admission), then applies its
 * rates to the tenant's buckets ({@link QuotaGovernor#pace}: a request beyond them waits in its
 * queue like any limit's, rather than meeting the provider's acceleration limit), judges each
 * minute from the tenant's attempts (it is a {@link RequestEventSink}) and tells its listeners
 * every decision with the state it leaves. The set of warm-ups follows the configuration in force
 * ({@link #reconcile}: the admin API adds and removes them); a state kept in the journal (before a
 * restart, or by another replica) is taken back by {@link #restore}.
 */
public final class Warmups implements RequestEventSink {

    private final NanoClock clock;
    private final QuotaGovernor governor;
    private final ZoneId zone;
    /** The warm-ups in force, swapped whole by {@link #reconcile}. */
    private volatile InForce inForce;
    /** States restored before their warm-up was in force (one created through the API, at start), by version. */
    private final Map<String, TreeMap<Long, Kept>> pending = new java.util.HashMap<>();
    private final List<Consumer<WarmupDecision>> listeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<WarmupDecision, WarmupState>> made = new CopyOnWriteArrayList<>();
    /** Whether the fleet's attempts are judged ({@link #judgeFleet}) instead of this replica's on its tick. */
    private volatile boolean judgedByFleet;

    private record InForce(Map<String, Entry> byId, Map<String, Entry> byTenant) {}

    private record Kept(WarmupState state, WarmupDecision decision) {}

    private static final class Entry {
        final Warmup warmup;
        final Scope scope;
        final Map<Dimension, Long> limits;
        long lastArrival = Long.MIN_VALUE;
        /** The day (in the reset zone) a scheduled warm-up last started. */
        LocalDate startedOn = LocalDate.MIN;

        Entry(Warmup warmup, Scope scope, Map<Dimension, Long> limits) {
            this.warmup = warmup;
            this.scope = scope;
            this.limits = limits;
        }
    }

    public Warmups(SluiceConfig config, NanoClock clock, QuotaGovernor governor) {
        this.clock = clock;
        this.governor = governor;
        this.zone = config.dailyResetZone();
        this.inForce = build(config, Map.of());
    }

    /**
     * Puts in force the warm-ups of {@code config}: one it adds is waiting (or where a state
     * restored for it puts it); one it no longer names is removed, its tenant's buckets refilling
     * at their limits again; one unchanged keeps its progress (and carries it over when only its
     * tenant's limits changed). A warm-up whose tenant or limit is gone is left out.
     */
    public synchronized void reconcile(SluiceConfig config) {
        InForce before = inForce;
        InForce next = build(config, before.byId);
        for (Entry e : next.byId.values()) {
            TreeMap<Long, Kept> kept = pending.remove(e.warmup.config().id());
            if (kept != null) {
                synchronized (e) {
                    kept.values().forEach(k -> take(e, k.state, k.decision));
                }
            }
        }
        inForce = next;
        for (Entry old : before.byId.values()) {
            if (next.byId.get(old.warmup.config().id()) != old) {
                synchronized (old) {
                    if (old.warmup.holding()) {
                        old.limits.keySet().forEach(d -> governor.pace(old.scope, d, 1.0));
                    }
                }
            }
        }
        // A new or re-read one that is warming paces its tenant from here (after the old one let go).
        for (Entry e : next.byId.values()) {
            if (before.byId.get(e.warmup.config().id()) != e) {
                synchronized (e) {
                    if (e.warmup.holding()) {
                        apply(e);
                    }
                }
            }
        }
    }

    private InForce build(SluiceConfig config, Map<String, Entry> running) {
        Map<String, Entry> byId = new LinkedHashMap<>();
        Map<String, Entry> byTenant = new java.util.HashMap<>();
        for (WarmupConfig w : config.warmups()) {
            var tenant = config.tenants().stream().filter(x -> x.id().equals(w.tenant())).findFirst();
            if (tenant.isEmpty()) {
                continue;
            }
            TenantConfig t = tenant.get();
            Map<Dimension, Long> limits = new EnumMap<>(Dimension.class);
            for (Dimension d : w.maxGrowthPerMinute().keySet()) {
                t.limits().get(d).map(Limit::amount).ifPresent(a -> limits.put(d, a));
            }
            if (limits.size() != w.maxGrowthPerMinute().size()) {
                continue;
            }
            Entry old = running.get(w.id());
            Entry e;
            if (old != null && old.warmup.config().equals(w) && old.limits.equals(limits)) {
                e = old;
            } else {
                e = new Entry(new Warmup(w, limits), Scope.of(ScopeLevel.TENANT, w.tenant()), Map.copyOf(limits));
                if (old != null && old.warmup.config().equals(w)) {
                    synchronized (old) {
                        e.warmup.adopt(old.warmup);
                        e.lastArrival = old.lastArrival;
                        e.startedOn = old.startedOn;
                    }
                }
            }
            byId.put(w.id(), e);
            byTenant.put(w.tenant(), e);
        }
        return new InForce(java.util.Collections.unmodifiableMap(byId), Map.copyOf(byTenant));
    }

    /**
     * Takes the state {@code decision} left on warm-up {@code id} (read back from the journal: kept
     * before a restart, or made by another replica) when it is later than the one in force, and
     * paces the tenant at its rates; held until the warm-up is in force when it is not yet. The
     * decision joins the history; the listeners are not told (they were where it was made).
     */
    public synchronized void restore(String id, WarmupState state, WarmupDecision decision) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            pending.computeIfAbsent(id, k -> new TreeMap<>()).put(state.version(), new Kept(state, decision));
            return;
        }
        synchronized (e) {
            take(e, state, decision);
        }
    }

    private void take(Entry e, WarmupState state, WarmupDecision decision) {
        if (e.warmup.restore(state, decision, clock.nanos(), clock.epochMillis())) {
            if (state.startedAtEpochMillis() > 0) {
                e.startedOn = Instant.ofEpochMilli(state.startedAtEpochMillis()).atZone(zone).toLocalDate();
            }
            if (e.lastArrival == Long.MIN_VALUE && state.startedAtEpochMillis() > 0) {
                // The tenant's arrivals before a restart are not kept: it was last known busy at the
                // decision, so its quiet spell (for on_first_traffic) counts from there, not from never.
                e.lastArrival = clock.nanos() - Math.max(0, clock.epochMillis() - decision.atEpochMillis()) * 1_000_000;
            }
            apply(e);
        }
    }

    /** Drops what was restored for warm-up {@code id} before it was in force: it was deleted. */
    public synchronized void forget(String id) {
        pending.remove(id);
    }

    /** Calls {@code listener} with every decision, on the thread that made it. */
    public void onDecision(Consumer<WarmupDecision> listener) {
        listeners.add(listener);
    }

    /**
     * Calls {@code listener} with every decision this runtime makes and the state it leaves, on the
     * thread that made it: what the journal keeps ({@link #restore} reads it back).
     */
    public void onStateChange(BiConsumer<WarmupDecision, WarmupState> listener) {
        made.add(listener);
    }

    /**
     * A request of {@code tenant} is about to be admitted: a warm-up that starts on first traffic
     * starts now when the tenant was quiet for {@link WarmupConfig#QUIET} (or never sent one).
     */
    public void onArrival(String tenant) {
        Entry e = inForce.byTenant.get(tenant);
        if (e == null) {
            return;
        }
        WarmupDecision d = null;
        WarmupState after = null;
        synchronized (e) {
            long now = clock.nanos();
            boolean quiet = e.lastArrival == Long.MIN_VALUE || now - e.lastArrival >= WarmupConfig.QUIET.toNanos();
            e.lastArrival = now;
            if (quiet && e.warmup.config().startAt().isEmpty() && !e.warmup.holding()) {
                d = begin(e, now);
                after = e.warmup.state();
            }
        }
        if (d != null) {
            tell(d, after);
        }
    }

    /**
     * One warm-up's minute so far on this replica, for the fleet to add up ({@link WarmupFleet}).
     *
     * @param id the warm-up
     * @param version the version of its state in force: the minute began with that decision
     * @param attempts the tenant's attempts on providers here since
     * @param throttled of which the provider refused (429)
     */
    public record Published(String id, long version, long attempts, long throttled) {
        public Published {
            java.util.Objects.requireNonNull(id, "id");
        }
    }

    /**
     * Whether each minute is judged on the attempts of every replica sharing the store
     * ({@link #judgeFleet}, by the replica that decides) rather than on this replica's own on its
     * tick. Starts and commands are not affected.
     */
    public void judgedByFleet(boolean fleet) {
        this.judgedByFleet = fleet;
    }

    /** The minute so far of each warm-up holding the tenant's rates (warming or paused): what this replica publishes. */
    public List<Published> published() {
        List<Published> out = new ArrayList<>();
        for (Entry e : inForce.byId.values()) {
            synchronized (e) {
                if (e.warmup.holding()) {
                    long[] m = e.warmup.minuteSoFar();
                    out.add(new Published(e.warmup.config().id(), e.warmup.state().version(), m[0], m[1]));
                }
            }
        }
        return out;
    }

    /**
     * Judges warm-up {@code id}'s minute that began with state {@code version} on the fleet's
     * {@code attempts} and {@code throttled} (every replica's at that version, added up), when
     * the minute has ended here: the decision is this runtime's (told to the listeners,
     * journaled). Nothing happens when the warm-up is unknown here, has moved past
     * {@code version}, or its minute has not ended.
     */
    public java.util.Optional<WarmupDecision> judgeFleet(String id, long version, long attempts, long throttled) {
        Entry e = inForce.byId.get(id);
        if (e == null) {
            return java.util.Optional.empty();
        }
        WarmupDecision d;
        WarmupState after;
        synchronized (e) {
            long now = clock.nanos();
            if (e.warmup.state().version() != version || !e.warmup.minuteDue(now)) {
                return java.util.Optional.empty();
            }
            d = e.warmup.onMinute(now, clock.epochMillis(), attempts, throttled);
            apply(e);
            after = e.warmup.state();
        }
        tell(d, after);
        return java.util.Optional.of(d);
    }

    /** Starts the scheduled warm-ups whose time has come, and judges every minute that ended (unless {@link #judgedByFleet}). */
    public void tick() {
        long now = clock.nanos();
        long epochMillis = clock.epochMillis();
        for (Entry e : inForce.byId.values()) {
            WarmupDecision d = null;
            WarmupState after = null;
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
                } else if (!judgedByFleet && e.warmup.minuteDue(now)) {
                    d = e.warmup.onMinute(now, epochMillis);
                    apply(e);
                }
                if (d != null) {
                    after = e.warmup.state();
                }
            }
            if (d != null) {
                tell(d, after);
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
        Entry e = inForce.byTenant.get(event.caller().get().tenant());
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
        return command(id, w -> w.pause(clock.epochMillis(), by));
    }

    /** Lets warm-up {@code id} grow again. */
    public WarmupDecision resume(String id, String by) {
        return command(id, w -> w.resume(clock.epochMillis(), by));
    }

    private WarmupDecision command(String id, java.util.function.Function<Warmup, WarmupDecision> c) {
        Entry e = entry(id);
        WarmupDecision d;
        WarmupState after;
        synchronized (e) {
            d = c.apply(e.warmup);
            after = e.warmup.state();
        }
        tell(d, after);
        return d;
    }

    /** What a warm-up is doing now. */
    public record View(String id, String tenant, Warmup.Status status, int grown, Map<Dimension, Long> rates,
            List<WarmupDecision> history) {
        public View {
            // In the dimensions' order: the API and the command line print them so.
            rates = rates.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new EnumMap<>(rates));
            history = List.copyOf(history);
        }
    }

    /** Every warm-up now, in the file's order. */
    public List<View> inspect() {
        List<View> out = new ArrayList<>();
        for (Entry e : inForce.byId.values()) {
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
        Map<String, Entry> byId = inForce.byId;
        Entry e = byId.get(id);
        if (e == null) {
            throw new NoSuchElementException("warm-up: \"" + id + "\" (expected: one of "
                    + new java.util.TreeSet<>(byId.keySet()) + ")");
        }
        return e;
    }

    private void tell(WarmupDecision d, WarmupState after) {
        for (Consumer<WarmupDecision> l : listeners) {
            try {
                l.accept(d);
            } catch (RuntimeException ex) {
                // a listener's failure must not stop the warm-up or the other listeners
            }
        }
        for (BiConsumer<WarmupDecision, WarmupState> l : made) {
            try {
                l.accept(d, after);
            } catch (RuntimeException ex) {
                // the journal's failure must not stop the warm-up: the state is in force here
            }
        }
    }
}
