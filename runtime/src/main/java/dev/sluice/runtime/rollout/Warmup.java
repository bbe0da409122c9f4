package dev.sluice.runtime.rollout;

import dev.sluice.limits.Dimension;
import dev.sluice.runtime.config.WarmupConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One tenant's warm-up and what moves it. Pure: time comes in as arguments; not thread-safe (its
 * {@link Warmups} guards it).
 *
 * <ul>
 *   <li>Waiting until it starts: at its time of day, or at the tenant's first request after a
 *       quiet spell.</li>
 *   <li>Warming: in each dimension the tenant's rate is the initial rate plus the ceiling's growth
 *       for every minute grown, never above the tenant's limit ({@link #rate}).</li>
 *   <li>At each minute's end the minute is judged: a provider 429 rate above the threshold (with
 *       enough attempts to judge) pauses growth; a clean minute grows one more (and resumes growth
 *       the analysis paused). An operator's pause holds until an operator resumes.</li>
 *   <li>Done once every rate reached its limit or the duration is over: the tenant runs at its limits.</li>
 * </ul>
 */
public final class Warmup {

    /** Where a warm-up is. */
    public enum Status {
        WAITING, WARMING, PAUSED, DONE;

        /** The name in the admin API: lower case. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final long MINUTE_NANOS = 60_000_000_000L;
    static final int MAX_HISTORY = 500;

    private final WarmupConfig config;
    private final Map<Dimension, Long> limits;
    private final List<WarmupDecision> history = new ArrayList<>();
    private Status status = Status.WAITING;
    private boolean pausedByOperator;
    private long startedAt;
    private long minuteStartedAt;
    private int grown;
    private long attempts;
    private long throttled;
    private long startedAtEpochMillis;
    private long version;

    /** @param limits the tenant's per-minute limits in each dimension the warm-up grows */
    public Warmup(WarmupConfig config, Map<Dimension, Long> limits) {
        this.config = config;
        this.limits = Collections.unmodifiableMap(new EnumMap<>(limits));
    }

    public WarmupConfig config() {
        return config;
    }

    public Status status() {
        return status;
    }

    /** Minutes of growth so far. */
    public int grown() {
        return grown;
    }

    public List<WarmupDecision> history() {
        return List.copyOf(history);
    }

    /** Whether the tenant's rates are held below its limits now. */
    public boolean holding() {
        return status == Status.WARMING || status == Status.PAUSED;
    }

    /** The tenant's allowed rate per minute in {@code d} now: its limit unless warming up. */
    public long rate(Dimension d) {
        long limit = limits.get(d);
        if (!holding()) {
            return limit;
        }
        return Math.min(limit, config.initial().get(d) + config.maxGrowthPerMinute().get(d) * grown);
    }

    /** The rate in force over the limit, in (0, 1], per dimension warmed up. */
    public Map<Dimension, Double> factors() {
        Map<Dimension, Double> out = new EnumMap<>(Dimension.class);
        limits.forEach((d, limit) -> out.put(d, Math.max(1e-6, Math.min(1, rate(d) / (double) limit))));
        return out;
    }

    /** Starts warming at {@code now}. */
    public WarmupDecision start(long now, long epochMillis, String by) {
        status = Status.WARMING;
        pausedByOperator = false;
        startedAt = now;
        startedAtEpochMillis = epochMillis;
        minuteStartedAt = now;
        grown = 0;
        attempts = throttled = 0;
        return record(epochMillis, "started", by, "started by " + by);
    }

    /** Counts an attempt of the tenant's on a provider, and whether the provider refused it (429). */
    public void onAttempt(boolean providerRefused) {
        if (holding()) {
            attempts++;
            if (providerRefused) {
                throttled++;
            }
        }
    }

    /** This replica's attempts of the tenant in the minute so far, and of which the provider refused: for the fleet's sum. */
    long[] minuteSoFar() {
        return new long[] {attempts, throttled};
    }

    /** Whether a minute has ended at {@code now} (judge it with {@link #onMinute}). */
    public boolean minuteDue(long now) {
        return holding() && now - minuteStartedAt >= MINUTE_NANOS;
    }

    /** Judges the minute that ended at {@code now}, or ends the warm-up past its duration or at its limits. */
    public WarmupDecision onMinute(long now, long epochMillis) {
        return onMinute(now, epochMillis, attempts, throttled);
    }

    /**
     * Judges the minute that ended at {@code now} on {@code a} attempts of which {@code t} were
     * refused by the provider (the fleet's, added up, when several replicas share the store), as
     * {@link #onMinute(long, long)} judges this replica's own; this replica's count starts again.
     */
    public WarmupDecision onMinute(long now, long epochMillis, long a, long t) {
        attempts = throttled = 0;
        minuteStartedAt = now;
        String figures = " (" + t + " provider 429s of " + a + " attempts)";
        if (now - startedAt >= config.duration().toNanos() || atLimits()) {
            status = Status.DONE;
            return record(epochMillis, "completed", Rollout.ANALYSIS, (atLimits() ? "every rate at the tenant's limit"
                    : "its duration is over") + figures);
        }
        boolean breach = a >= config.minRequests() && t / (double) a > config.provider429Rate();
        if (breach) {
            status = Status.PAUSED;
            return record(epochMillis, "paused", Rollout.ANALYSIS, "provider 429 rate " + (t / (double) a) + " above "
                    + config.provider429Rate() + figures);
        }
        if (status == Status.PAUSED) {
            if (pausedByOperator) {
                return record(epochMillis, "held", Rollout.ANALYSIS, "paused by an operator" + figures);
            }
            status = Status.WARMING;
        }
        grown++;
        return record(epochMillis, "grown", Rollout.ANALYSIS, "a minute within the threshold" + figures);
    }

    private boolean atLimits() {
        for (Dimension d : limits.keySet()) {
            if (config.initial().get(d) + config.maxGrowthPerMinute().get(d) * grown < limits.get(d)) {
                return false;
            }
        }
        return true;
    }

    /** Holds the rates where they are until an operator resumes. */
    public WarmupDecision pause(long epochMillis, String by) {
        require(holding(), "pause");
        status = Status.PAUSED;
        pausedByOperator = true;
        return record(epochMillis, "paused", by, "paused by " + by);
    }

    public WarmupDecision resume(long epochMillis, String by) {
        require(status == Status.PAUSED, "resume");
        status = Status.WARMING;
        pausedByOperator = false;
        return record(epochMillis, "resumed", by, "resumed by " + by);
    }

    private void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("warm-up " + config.id() + " is " + status.wireName() + " and cannot " + what);
        }
    }

    private WarmupDecision record(long epochMillis, String action, String by, String reason) {
        WarmupDecision d = new WarmupDecision(config.id(), config.tenant(), epochMillis, action, by, grown,
                rates(), reason);
        version++;
        keep(d);
        return d;
    }

    private void keep(WarmupDecision d) {
        if (history.size() == MAX_HISTORY) {
            history.remove(0);
        }
        history.add(d);
    }

    /** Where it stands now: what the journal keeps with each decision. */
    public WarmupState state() {
        return new WarmupState(status, grown, pausedByOperator, startedAtEpochMillis, version);
    }

    /**
     * Takes {@code state}, left by {@code decision} (before a restart, or on another replica), when
     * it is later than the one here, or as late and safer (paused over warming, then fewer minutes
     * grown): two replicas judging one minute differently both end on the cautious one. Its
     * duration runs from the recorded start and its minute from the decision, on this clock.
     *
     * @return whether it was taken
     */
    public boolean restore(WarmupState state, WarmupDecision decision, long now, long nowEpochMillis) {
        if (state.version() < version || (state.version() == version && !safer(state, state()))) {
            return false;
        }
        status = state.status();
        grown = state.grown();
        pausedByOperator = state.pausedByOperator();
        startedAtEpochMillis = state.startedAtEpochMillis();
        version = state.version();
        startedAt = now - Math.max(0, nowEpochMillis - startedAtEpochMillis) * 1_000_000;
        long since = Math.max(0, nowEpochMillis - decision.atEpochMillis());
        minuteStartedAt = now - Math.min(since * 1_000_000, MINUTE_NANOS);
        attempts = throttled = 0;
        keep(decision);
        return true;
    }

    private static boolean safer(WarmupState a, WarmupState b) {
        int severity = Boolean.compare(a.status() == Status.PAUSED, b.status() == Status.PAUSED);
        return severity > 0 || (severity == 0 && a.grown() < b.grown());
    }

    /**
     * Carries {@code before}'s progress and history over to this one, the same warm-up read again
     * (its tenant's limits changed): the rates follow the new limits from where it got.
     */
    void adopt(Warmup before) {
        history.addAll(before.history);
        status = before.status;
        pausedByOperator = before.pausedByOperator;
        startedAt = before.startedAt;
        startedAtEpochMillis = before.startedAtEpochMillis;
        minuteStartedAt = before.minuteStartedAt;
        grown = before.grown;
        attempts = before.attempts;
        throttled = before.throttled;
        version = before.version;
    }

    private Map<Dimension, Long> rates() {
        Map<Dimension, Long> out = new EnumMap<>(Dimension.class);
        limits.keySet().forEach(d -> out.put(d, rate(d)));
        return out;
    }
}
