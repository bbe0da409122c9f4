package dev.sluice.mock.limits;

import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A provider's rate limits as a pure state machine: no threads, no I/O, no clock. Every call takes
 * {@code nowNanos}, so the HTTP mock drives it with real time and the simulator with virtual time
 * and both get the same answers. Times that go backwards are treated as the latest time seen.
 *
 * <p>Rules, as providers apply them:
 * <ul>
 *   <li>Requests: every arrival counts in its day, and in its window where the limiter says so (the
 *       reference's sub-windows and fixed short windows count refusals; a minute, a sliding window
 *       or a bucket does not).
 *   <li>Input tokens are charged on arrival; cache reads only when the limits say so.
 *   <li>Output tokens are reserved from {@code max_tokens} and corrected at completion, or counted
 *       only at completion ({@link OutputAccounting}).
 *   <li>How each rate limit is enforced, what a 429's wait means, how fresh the reported state is,
 *       warm-ups and unannounced changes come from the {@link ProviderBehaviour}; the
 *       {@link ProviderBehaviour#REFERENCE reference} counts requests in fixed sub-windows and holds
 *       token limits as buckets of one minute that refill continuously.
 *   <li>A request rejected by several limits is reported against the one with the longest wait.
 * </ul>
 *
 * <p>Not thread-safe: confine an instance to one thread or guard it with one lock.
 */
public final class ProviderLimitModel {

    /** The wait suggested when the concurrency limit rejects: in-flight work has no known end. */
    public static final long CONCURRENCY_RETRY_MILLIS = 1_000;

    private final long dayOriginNanos;
    private final long startNanos;
    private final ProviderBehaviour behaviour;
    private ProviderLimits limits;
    private long lastNanos;
    private long firstUseNanos = Long.MIN_VALUE;
    private double factor = Double.NaN;
    private long nextTicketId = 1;

    /** The rate limiters, by {@link ProviderBehaviour#RATE_LIMITS}; absent where unlimited. */
    private final Map<LimitKind, Limiter> rates = new EnumMap<>(LimitKind.class);
    private DailyCounter daily;
    private AccelerationTracker acceleration;
    private int inFlight;
    private LimitSnapshot reported;
    private long reportedAt;

    private final Map<Long, Ticket> open = new HashMap<>();
    private final Map<String, Counters> tenants = new LinkedHashMap<>();

    /** A reference model whose days start at {@code nowNanos == 0}. */
    public ProviderLimitModel(ProviderLimits limits) {
        this(limits, 0L);
    }

    /**
     * A reference model.
     *
     * @param limits the limits to enforce
     * @param dayOriginNanos a time, in the same nanos as every {@code nowNanos}, at which a day starts
     *     (the daily limit resets every 24 h from it)
     */
    public ProviderLimitModel(ProviderLimits limits, long dayOriginNanos) {
        this(limits, ProviderBehaviour.REFERENCE, dayOriginNanos, 0L);
    }

    /**
     * @param limits the limits to enforce, as configured
     * @param behaviour how they are enforced and reported
     * @param dayOriginNanos a time at which a day starts
     * @param startNanos the time the provider starts, from which unannounced changes are timed
     */
    public ProviderLimitModel(ProviderLimits limits, ProviderBehaviour behaviour, long dayOriginNanos,
            long startNanos) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.behaviour = Objects.requireNonNull(behaviour, "behaviour");
        this.dayOriginNanos = dayOriginNanos;
        this.startNanos = startNanos;
        this.lastNanos = Long.MIN_VALUE;
        rebuild(Long.MIN_VALUE);
    }

    /** {@code nowNanos} may be {@code Long.MIN_VALUE}: buckets then start at their first use. */
    private void rebuild(long nowNanos) {
        factor = behaviour.rateFactor(nowNanos == Long.MIN_VALUE ? 0 : nowNanos - startNanos, -1);
        rates.clear();
        for (LimitKind kind : ProviderBehaviour.RATE_LIMITS) {
            long limit = nominal(kind);
            if (ProviderLimits.isLimited(limit)) {
                rates.put(kind, create(kind, effective(limit), nowNanos));
            }
        }
        daily = ProviderLimits.isLimited(limits.rpd()) ? new DailyCounter(limits.rpd(), dayOriginNanos) : null;
        acceleration = limits.acceleration().enabled() ? new AccelerationTracker(limits.acceleration()) : null;
        reported = null;
    }

    private long nominal(LimitKind kind) {
        return switch (kind) {
            case REQUESTS -> limits.rpm();
            case INPUT_TOKENS -> limits.inputTpm();
            case OUTPUT_TOKENS -> limits.outputTpm();
            case TOKENS -> limits.tpm();
            default -> throw new IllegalArgumentException("not a rate limit: " + kind);
        };
    }

    private long effective(long nominal) {
        return factor == 1.0 ? nominal : Math.max(1, Math.round(nominal * factor));
    }

    private Limiter create(LimitKind kind, long limit, long nowNanos) {
        Enforcement e = behaviour.enforcement().get(kind);
        if (e != null) {
            return e.limiter(limit);
        }
        return kind == LimitKind.REQUESTS ? new RequestWindows(limit, limits.requestWindow().toNanos())
                : new TokenBucket(limit, nowNanos);
    }

    private Limiter resized(LimitKind kind, Limiter old, long limit, long nowNanos) {
        if (old == null) {
            return create(kind, limit, nowNanos);
        }
        if (old instanceof RequestWindows w) {
            return w.withLimits(limit, limits.requestWindow().toNanos());
        }
        return old.withLimit(limit, nowNanos);
    }

    /** The limits as configured (or last set): what warm-ups and unannounced changes scale. */
    public ProviderLimits limits() {
        return limits;
    }

    /** How this provider enforces and reports its limits. */
    public ProviderBehaviour behaviour() {
        return behaviour;
    }

    /**
     * The share of the configured rate limits in force at {@code nowNanos} (warm-up and unannounced
     * changes), as far as the requests seen so far decide it; 1 for the reference model.
     */
    public double rateFactor(long nowNanos) {
        return behaviour.rateFactor(nowNanos - startNanos,
                firstUseNanos == Long.MIN_VALUE ? -1 : nowNanos - firstUseNanos);
    }

    /** The rate limits in force now: the configured ones scaled by {@link #rateFactor(long)}. */
    public ProviderLimits limitsInForce() {
        if (factor == 1.0) {
            return limits;
        }
        ProviderLimits.Builder b = limits.toBuilder();
        for (var e : rates.entrySet()) {
            long v = e.getValue().limit();
            switch (e.getKey()) {
                case REQUESTS -> b.rpm(v);
                case INPUT_TOKENS -> b.inputTpm(v);
                case OUTPUT_TOKENS -> b.outputTpm(v);
                default -> b.tpm(v);
            }
        }
        return b.build();
    }

    /**
     * What a limit lets through at the start beyond its per-minute rate: a full bucket's content
     * (a minute's worth in the reference model), 0 for windows or an unlimited dimension.
     */
    public long initialHeadroom(LimitKind kind) {
        Limiter l = rates.get(kind);
        return l == null ? 0 : l.initialHeadroom();
    }

    /**
     * What a limit holds in store at {@code nowNanos} beyond what refills from then on (a bucket's
     * content; 0 for windows or an unlimited dimension). Changes nothing, so an observer may ask at
     * any time without changing what the provider decides.
     */
    public long headroom(LimitKind kind, long nowNanos) {
        Limiter l = rates.get(kind);
        return l == null ? 0 : l.headroom(Math.max(nowNanos, lastNanos));
    }

    /** Requests admitted and not yet completed. */
    public int inFlight() {
        return inFlight;
    }

    private long advance(long nowNanos) {
        long now = Math.max(nowNanos, lastNanos);
        lastNanos = now;
        double f = rateFactor(now);
        if (f != factor) {
            factor = f;
            rates.replaceAll((kind, l) -> resized(kind, l, effective(nominal(kind)), now));
        }
        for (Limiter l : rates.values()) {
            l.tick(now);
        }
        return now;
    }

    /**
     * A request arrives.
     *
     * @param tenant who sent it, for statistics only (the limits are shared)
     * @param inputTokens prompt tokens not read from a cache (cache writes included), as the
     *     provider counts them ({@link TokenCounting})
     * @param cacheReadTokens prompt tokens read from a cache
     * @param maxTokens the request's output cap
     * @param nowNanos the time of arrival
     */
    public Admission tryAdmit(String tenant, long inputTokens, long cacheReadTokens, long maxTokens, long nowNanos) {
        Objects.requireNonNull(tenant, "tenant");
        requireNonNegative("inputTokens", inputTokens);
        requireNonNegative("cacheReadTokens", cacheReadTokens);
        requireNonNegative("maxTokens", maxTokens);
        if (firstUseNanos == Long.MIN_VALUE) {
            firstUseNanos = Math.max(nowNanos, lastNanos);
        }
        long now = advance(nowNanos);
        Counters stats = tenants.computeIfAbsent(tenant, t -> new Counters());

        long inputCharge = inputTokens + (limits.cacheReadCountsAgainstInputTpm() ? cacheReadTokens : 0);
        long outputReserve =
                limits.outputAccounting() == OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT ? maxTokens : 0;
        long totalCharge = inputCharge + outputReserve;

        Optional<? extends Admission> rejection = tooLarge(inputCharge, outputReserve, totalCharge);
        if (rejection.isEmpty()) {
            rejection = limited(now, inputCharge, outputReserve, totalCharge);
        }
        if (daily != null) {
            daily.record(now);
        }
        if (rejection.isPresent()) {
            Limiter requests = rates.get(LimitKind.REQUESTS);
            if (requests != null) {
                requests.refused(1, now);
            }
            Admission verdict = rejection.get();
            if (verdict instanceof Admission.Limited l) {
                stats.limited.merge(l.which(), 1L, Long::sum);
            } else {
                stats.tooLarge++;
            }
            return verdict;
        }
        charge(LimitKind.REQUESTS, 1, now);
        charge(LimitKind.INPUT_TOKENS, inputCharge, now);
        charge(LimitKind.OUTPUT_TOKENS, outputReserve, now);
        charge(LimitKind.TOKENS, totalCharge, now);
        if (acceleration != null) {
            acceleration.record(now);
        }
        inFlight++;
        Ticket ticket = new Ticket(nextTicketId++, tenant, inputCharge, cacheReadTokens, outputReserve, now);
        open.put(ticket.id(), ticket);
        stats.accepted++;
        stats.inputTokens += inputTokens;
        stats.cacheReadTokens += cacheReadTokens;
        return new Admission.Accepted(ticket);
    }

    private void charge(LimitKind kind, long amount, long now) {
        Limiter l = rates.get(kind);
        if (l != null) {
            l.charge(amount, now);
        }
    }

    /** Too large for good: more than the configured per-minute limit (not the one a warm-up or cut leaves). */
    private Optional<Admission.TooLarge> tooLarge(long inputCharge, long outputReserve, long totalCharge) {
        if (ProviderLimits.isLimited(limits.inputTpm()) && inputCharge > limits.inputTpm()) {
            return Optional.of(new Admission.TooLarge(LimitKind.INPUT_TOKENS, limits.inputTpm(), inputCharge));
        }
        if (ProviderLimits.isLimited(limits.outputTpm()) && outputReserve > limits.outputTpm()) {
            return Optional.of(new Admission.TooLarge(LimitKind.OUTPUT_TOKENS, limits.outputTpm(), outputReserve));
        }
        if (ProviderLimits.isLimited(limits.tpm()) && totalCharge > limits.tpm()) {
            return Optional.of(new Admission.TooLarge(LimitKind.TOKENS, limits.tpm(), totalCharge));
        }
        return Optional.empty();
    }

    private Optional<Admission.Limited> limited(long now, long inputCharge, long outputReserve, long totalCharge) {
        Admission.Limited worst = null;
        if (ProviderLimits.isLimited(limits.maxConcurrency()) && inFlight >= limits.maxConcurrency()) {
            worst = worse(worst, new Admission.Limited(LimitKind.CONCURRENCY, CONCURRENCY_RETRY_MILLIS,
                    limits.maxConcurrency(), Math.max(0, limits.maxConcurrency() - inFlight), 1));
        }
        if (daily != null && daily.full(now)) {
            Gauge g = daily.gauge(now);
            worst = worse(worst, new Admission.Limited(LimitKind.REQUESTS_PER_DAY,
                    millis(daily.nanosUntilDayEnds(now)), g.limit(), g.remaining(), 1));
        }
        worst = worse(worst, verdict(LimitKind.REQUESTS, 1, now));
        if (acceleration != null && acceleration.wouldExceed(now)) {
            long allowance = acceleration.recentAllowance(now);
            worst = worse(worst, new Admission.Limited(LimitKind.ACCELERATION,
                    millis(acceleration.nanosUntilRecentSlotFrees(now)), allowance,
                    Math.max(0, allowance - acceleration.recentCount(now)), 1));
        }
        worst = worse(worst, verdict(LimitKind.INPUT_TOKENS, inputCharge, now));
        // Without a reservation only an exhausted output bucket holds a request back.
        worst = worse(worst, verdict(LimitKind.OUTPUT_TOKENS, outputReserve, now));
        worst = worse(worst, verdict(LimitKind.TOKENS, totalCharge, now));
        return Optional.ofNullable(worst);
    }

    /** The refusal of one rate limit, with the wait the provider's {@link RetryAfterMeaning} announces. */
    private Admission.Limited verdict(LimitKind kind, long amount, long now) {
        Limiter l = rates.get(kind);
        if (l == null || l.fits(amount, now)) {
            return null;
        }
        long wait = behaviour.retryAfter() == RetryAfterMeaning.FULL_REFILL ? l.nanosUntilFull(now)
                : l.nanosUntilFits(amount, now);
        Gauge g = l.gauge(now);
        return new Admission.Limited(kind, millis(wait), g.limit(), g.remaining(), amount);
    }

    private static Admission.Limited worse(Admission.Limited current, Admission.Limited candidate) {
        if (candidate == null) {
            return current;
        }
        if (current == null || candidate.retryAfterMillis() > current.retryAfterMillis()) {
            return candidate;
        }
        return current;
    }

    private static long millis(long nanos) {
        return Math.ceilDiv(nanos, 1_000_000L);
    }

    /**
     * An admitted request ends, successfully or not. The output reservation is replaced by what was
     * actually produced and the concurrency slot is released.
     *
     * @param outputTokens output tokens produced (those streamed before a failure count)
     * @return false when the ticket is unknown: already completed, or issued before {@link #reset()}
     */
    public boolean complete(Ticket ticket, long outputTokens, long nowNanos) {
        Objects.requireNonNull(ticket, "ticket");
        requireNonNegative("outputTokens", outputTokens);
        advance(nowNanos);
        if (open.remove(ticket.id()) == null) {
            return false;
        }
        long correction = outputTokens - ticket.outputReserved();
        long now = lastNanos;
        charge(LimitKind.OUTPUT_TOKENS, correction, now);
        charge(LimitKind.TOKENS, correction, now);
        inFlight--;
        Counters stats = tenants.computeIfAbsent(ticket.tenant(), t -> new Counters());
        stats.completed++;
        stats.outputTokens += outputTokens;
        return true;
    }

    /** Every configured limit's state at {@code nowNanos}, as the provider sees it. */
    public LimitSnapshot snapshot(long nowNanos) {
        long now = advance(nowNanos);
        Map<LimitKind, Gauge> gauges = new EnumMap<>(LimitKind.class);
        Optional<Gauge> perMinute = Optional.empty();
        for (var e : rates.entrySet()) {
            gauges.put(e.getKey(), e.getValue().gauge(now));
            if (e.getKey() == LimitKind.REQUESTS) {
                perMinute = Optional.of(e.getValue().minuteGauge(now));
            }
        }
        if (daily != null) {
            gauges.put(LimitKind.REQUESTS_PER_DAY, daily.gauge(now));
        }
        if (ProviderLimits.isLimited(limits.maxConcurrency())) {
            gauges.put(LimitKind.CONCURRENCY,
                    new Gauge(limits.maxConcurrency(), Math.max(0, limits.maxConcurrency() - inFlight), 0));
        }
        return new LimitSnapshot(gauges, perMinute, inFlight);
    }

    /**
     * The state rate-limit headers report at {@code nowNanos}: the current one, or with
     * {@link HeaderReport#STALE} the one taken when the last report was refreshed, at most
     * {@link ProviderBehaviour#headerStaleness()} ago.
     */
    public LimitSnapshot reportedSnapshot(long nowNanos) {
        if (behaviour.headers() != HeaderReport.STALE) {
            return snapshot(nowNanos);
        }
        long now = Math.max(nowNanos, lastNanos);
        if (reported == null || now - reportedAt >= behaviour.headerStaleness().toNanos()) {
            reported = snapshot(now);
            reportedAt = now;
        }
        return reported;
    }

    /**
     * Changes the limits at run time. Usage so far is kept where the dimension stays limited: tokens
     * used stay used against the new size, and the current window's and day's counts stay.
     */
    public void setLimits(ProviderLimits newLimits, long nowNanos) {
        Objects.requireNonNull(newLimits, "newLimits");
        long now = advance(nowNanos);
        ProviderLimits old = this.limits;
        this.limits = newLimits;
        for (LimitKind kind : ProviderBehaviour.RATE_LIMITS) {
            long limit = nominal(kind);
            Limiter l = rates.get(kind);
            if (!ProviderLimits.isLimited(limit)) {
                rates.remove(kind);
            } else {
                rates.put(kind, resized(kind, l, effective(limit), now));
            }
        }
        if (!ProviderLimits.isLimited(newLimits.rpd())) {
            daily = null;
        } else if (daily == null) {
            daily = new DailyCounter(newLimits.rpd(), dayOriginNanos);
        } else {
            daily.setLimit(newLimits.rpd());
        }
        if (!newLimits.acceleration().equals(old.acceleration())) {
            acceleration = newLimits.acceleration().enabled() ? new AccelerationTracker(newLimits.acceleration()) : null;
        }
        reported = null;
    }

    /** Forgets all usage, open tickets and statistics; the limits stay. */
    public void reset() {
        open.clear();
        tenants.clear();
        inFlight = 0;
        firstUseNanos = Long.MIN_VALUE;
        rebuild(lastNanos);
    }

    /** Statistics per tenant, in order of first appearance. */
    public Map<String, TenantStats> tenantStats() {
        Map<String, TenantStats> out = new LinkedHashMap<>();
        tenants.forEach((tenant, c) -> out.put(tenant, c.toStats()));
        return Collections.unmodifiableMap(out);
    }

    /** Statistics of one tenant; {@link TenantStats#EMPTY} if it never sent anything. */
    public TenantStats tenantStats(String tenant) {
        Counters c = tenants.get(tenant);
        return c == null ? TenantStats.EMPTY : c.toStats();
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
        }
    }

    private static final class Counters {
        long accepted;
        final Map<LimitKind, Long> limited = new EnumMap<>(LimitKind.class);
        long tooLarge;
        long completed;
        long inputTokens;
        long cacheReadTokens;
        long outputTokens;

        TenantStats toStats() {
            return new TenantStats(accepted, limited, tooLarge, completed, inputTokens, cacheReadTokens, outputTokens);
        }
    }
}
