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
 *   <li>Requests: every arrival counts in its sub-window and day, admitted or not.
 *   <li>Input tokens are charged on arrival; cache reads only when the limits say so.
 *   <li>Output tokens are reserved from {@code max_tokens} and corrected at completion, or counted
 *       only at completion ({@link OutputAccounting}).
 *   <li>Token buckets hold one minute's worth and refill continuously.
 *   <li>A request rejected by several limits is reported against the one with the longest wait.
 * </ul>
 *
 * <p>Not thread-safe: confine an instance to one thread or guard it with one lock.
 */
public final class ProviderLimitModel {

    /** The wait suggested when the concurrency limit rejects: in-flight work has no known end. */
    public static final long CONCURRENCY_RETRY_MILLIS = 1_000;

    private final long dayOriginNanos;
    private ProviderLimits limits;
    private long lastNanos;
    private long nextTicketId = 1;

    private RequestWindows windows;
    private DailyCounter daily;
    private AccelerationTracker acceleration;
    private TokenBucket input;
    private TokenBucket output;
    private TokenBucket total;
    private int inFlight;

    private final Map<Long, Ticket> open = new HashMap<>();
    private final Map<String, Counters> tenants = new LinkedHashMap<>();

    /** A model whose days start at {@code nowNanos == 0}. */
    public ProviderLimitModel(ProviderLimits limits) {
        this(limits, 0L);
    }

    /**
     * @param limits the limits to enforce
     * @param dayOriginNanos a time, in the same nanos as every {@code nowNanos}, at which a day starts
     *     (the daily limit resets every 24 h from it)
     */
    public ProviderLimitModel(ProviderLimits limits, long dayOriginNanos) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.dayOriginNanos = dayOriginNanos;
        this.lastNanos = Long.MIN_VALUE;
        rebuild(limits, lastNanos);
    }

    /** {@code nowNanos} may be {@code Long.MIN_VALUE}: buckets then start at their first use. */
    private void rebuild(ProviderLimits l, long nowNanos) {
        windows = ProviderLimits.isLimited(l.rpm()) ? new RequestWindows(l.rpm(), l.requestWindow().toNanos()) : null;
        daily = ProviderLimits.isLimited(l.rpd()) ? new DailyCounter(l.rpd(), dayOriginNanos) : null;
        acceleration = l.acceleration().enabled() ? new AccelerationTracker(l.acceleration()) : null;
        input = ProviderLimits.isLimited(l.inputTpm()) ? new TokenBucket(l.inputTpm(), nowNanos) : null;
        output = ProviderLimits.isLimited(l.outputTpm()) ? new TokenBucket(l.outputTpm(), nowNanos) : null;
        total = ProviderLimits.isLimited(l.tpm()) ? new TokenBucket(l.tpm(), nowNanos) : null;
    }

    /** The limits in force. */
    public ProviderLimits limits() {
        return limits;
    }

    /** Requests admitted and not yet completed. */
    public int inFlight() {
        return inFlight;
    }

    private long advance(long nowNanos) {
        long now = Math.max(nowNanos, lastNanos);
        lastNanos = now;
        for (TokenBucket bucket : new TokenBucket[] {input, output, total}) {
            if (bucket != null) {
                bucket.refill(now);
            }
        }
        return now;
    }

    /**
     * A request arrives.
     *
     * @param tenant who sent it, for statistics only (the limits are shared)
     * @param inputTokens prompt tokens not read from a cache (cache writes included)
     * @param cacheReadTokens prompt tokens read from a cache
     * @param maxTokens the request's output cap
     * @param nowNanos the time of arrival
     */
    public Admission tryAdmit(String tenant, long inputTokens, long cacheReadTokens, long maxTokens, long nowNanos) {
        Objects.requireNonNull(tenant, "tenant");
        requireNonNegative("inputTokens", inputTokens);
        requireNonNegative("cacheReadTokens", cacheReadTokens);
        requireNonNegative("maxTokens", maxTokens);
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
        if (windows != null) {
            windows.record(now);
        }
        if (daily != null) {
            daily.record(now);
        }
        if (rejection.isPresent()) {
            Admission verdict = rejection.get();
            if (verdict instanceof Admission.Limited l) {
                stats.limited.merge(l.which(), 1L, Long::sum);
            } else {
                stats.tooLarge++;
            }
            return verdict;
        }
        charge(input, inputCharge);
        charge(output, outputReserve);
        charge(total, totalCharge);
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

    private static void charge(TokenBucket bucket, long amount) {
        if (bucket != null) {
            bucket.charge(amount);
        }
    }

    private Optional<Admission.TooLarge> tooLarge(long inputCharge, long outputReserve, long totalCharge) {
        if (input != null && inputCharge > input.capacity()) {
            return Optional.of(new Admission.TooLarge(LimitKind.INPUT_TOKENS, input.capacity(), inputCharge));
        }
        if (output != null && outputReserve > output.capacity()) {
            return Optional.of(new Admission.TooLarge(LimitKind.OUTPUT_TOKENS, output.capacity(), outputReserve));
        }
        if (total != null && totalCharge > total.capacity()) {
            return Optional.of(new Admission.TooLarge(LimitKind.TOKENS, total.capacity(), totalCharge));
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
        if (windows != null && windows.full(now)) {
            Gauge g = windows.windowGauge(now);
            worst = worse(worst, new Admission.Limited(LimitKind.REQUESTS,
                    millis(windows.nanosUntilWindowEnds(now)), g.limit(), g.remaining(), 1));
        }
        if (acceleration != null && acceleration.wouldExceed(now)) {
            long allowance = acceleration.recentAllowance(now);
            worst = worse(worst, new Admission.Limited(LimitKind.ACCELERATION,
                    millis(acceleration.nanosUntilRecentSlotFrees(now)), allowance,
                    Math.max(0, allowance - acceleration.recentCount(now)), 1));
        }
        worst = worse(worst, bucketVerdict(LimitKind.INPUT_TOKENS, input, inputCharge));
        // Without a reservation only an exhausted output bucket holds a request back.
        worst = worse(worst, bucketVerdict(LimitKind.OUTPUT_TOKENS, output, outputReserve));
        worst = worse(worst, bucketVerdict(LimitKind.TOKENS, total, totalCharge));
        return Optional.ofNullable(worst);
    }

    private static Admission.Limited bucketVerdict(LimitKind kind, TokenBucket bucket, long amount) {
        if (bucket == null || bucket.fits(amount)) {
            return null;
        }
        return new Admission.Limited(kind, millis(bucket.nanosUntilFits(amount)), bucket.capacity(),
                bucket.remaining(), amount);
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
        charge(output, correction);
        charge(total, correction);
        inFlight--;
        Counters stats = tenants.computeIfAbsent(ticket.tenant(), t -> new Counters());
        stats.completed++;
        stats.outputTokens += outputTokens;
        return true;
    }

    /** Every configured limit's state, as rate-limit headers report it. */
    public LimitSnapshot snapshot(long nowNanos) {
        long now = advance(nowNanos);
        Map<LimitKind, Gauge> gauges = new EnumMap<>(LimitKind.class);
        Optional<Gauge> perMinute = Optional.empty();
        if (windows != null) {
            gauges.put(LimitKind.REQUESTS, windows.windowGauge(now));
            perMinute = Optional.of(windows.minuteGauge(now));
        }
        if (daily != null) {
            gauges.put(LimitKind.REQUESTS_PER_DAY, daily.gauge(now));
        }
        if (ProviderLimits.isLimited(limits.maxConcurrency())) {
            gauges.put(LimitKind.CONCURRENCY,
                    new Gauge(limits.maxConcurrency(), Math.max(0, limits.maxConcurrency() - inFlight), 0));
        }
        if (input != null) {
            gauges.put(LimitKind.INPUT_TOKENS, input.gauge());
        }
        if (output != null) {
            gauges.put(LimitKind.OUTPUT_TOKENS, output.gauge());
        }
        if (total != null) {
            gauges.put(LimitKind.TOKENS, total.gauge());
        }
        return new LimitSnapshot(gauges, perMinute, inFlight);
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
        if (!ProviderLimits.isLimited(newLimits.rpm())) {
            windows = null;
        } else {
            long window = newLimits.requestWindow().toNanos();
            windows = windows == null ? new RequestWindows(newLimits.rpm(), window)
                    : windows.withLimits(newLimits.rpm(), window);
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
        input = resize(input, newLimits.inputTpm(), now);
        output = resize(output, newLimits.outputTpm(), now);
        total = resize(total, newLimits.tpm(), now);
    }

    private static TokenBucket resize(TokenBucket bucket, long limit, long now) {
        if (!ProviderLimits.isLimited(limit)) {
            return null;
        }
        if (bucket == null) {
            return new TokenBucket(limit, now);
        }
        bucket.resize(limit, now);
        return bucket;
    }

    /** Forgets all usage, open tickets and statistics; the limits stay. */
    public void reset() {
        open.clear();
        tenants.clear();
        inFlight = 0;
        rebuild(limits, lastNanos);
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
