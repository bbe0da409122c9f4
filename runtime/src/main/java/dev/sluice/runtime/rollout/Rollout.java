package dev.sluice.runtime.rollout;

import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.rollout.RolloutDecision.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleFunction;

/**
 * A rollout's stages and what moves it between them. Pure: time comes in as arguments; not
 * thread-safe (its {@link Rollouts} entry guards it).
 *
 * <ul>
 *   <li>Created {@code pending} (share 0); {@code start} puts it at its first stage.</li>
 *   <li>At the end of each interval (or as soon as the interval so far breaches a threshold,
 *       {@link #breachedEarly}) the analysis judges the target ({@link RolloutAnalysis}):
 *       a pass advances one stage when the target has room for it (else holds), and completes
 *       the rollout at the last stage; an inconclusive interval holds; a breach counts a failed
 *       interval and pauses, and the {@code rollback_after}-th failed interval rolls back.</li>
 *   <li>Paused, the share is held where it is; a passing interval resumes a rollout the analysis
 *       paused (the failed intervals stay counted), never one an operator paused.</li>
 *   <li>An operator may pause, resume, advance one stage, or roll back at once.</li>
 *   <li>Rolled back, the share is 0: every request runs where the profile routes it.</li>
 * </ul>
 */
public final class Rollout {

    /** Where a rollout is. */
    public enum Status {
        PENDING, RUNNING, PAUSED, COMPLETE, ROLLED_BACK;

        /** The name in the admin API and metrics: lower case. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static final String ANALYSIS = "analysis";
    /** Decisions kept per rollout: days of five-minute intervals. */
    static final int MAX_HISTORY = 2_000;
    private static final RolloutAssignment.Stage NOTHING = new RolloutAssignment.Stage(0, 0);

    private final RolloutConfig config;
    private final List<RolloutAssignment.Stage> stages;
    private final List<RolloutDecision> history = new ArrayList<>();
    private Status status = Status.PENDING;
    private int stage = -1;
    private boolean pausedByOperator;
    private int failedIntervals;
    private long intervalStartNanos;
    /** Decisions so far: the version of the state each one leaves. */
    private long version;
    /** The figures of the latest decision of the analysis, here or restored. */
    private Optional<IntervalFigures> lastFigures = Optional.empty();

    public Rollout(RolloutConfig config) {
        this.config = config;
        this.stages = RolloutAssignment.stages(config);
    }

    public RolloutConfig config() {
        return config;
    }

    public Status status() {
        return status;
    }

    /** The stage in force, -1 before the first. */
    public int stage() {
        return stage;
    }

    public List<RolloutAssignment.Stage> stages() {
        return stages;
    }

    public int failedIntervals() {
        return failedIntervals;
    }

    /** Where it stands now, as the journal keeps it. */
    public RolloutState state() {
        return new RolloutState(status, stage, pausedByOperator, failedIntervals, version);
    }

    /**
     * Takes {@code state}, left by {@code decision} (on another replica, or before a restart),
     * when it is later than the state in force, or as late and safer: two replicas that decided
     * the same interval differently both end on the safer decision (rolled back, then paused, then
     * the lower stage). The interval in progress restarts from the decision's time, {@code now}
     * being {@code nowEpochMillis} on the wall clock.
     *
     * @return whether it was taken
     */
    public boolean restore(RolloutState state, RolloutDecision decision, long now, long nowEpochMillis) {
        if (state.version() < version || (state.version() == version && !safer(state, state()))) {
            return false;
        }
        status = state.status();
        stage = Math.min(state.stage(), stages.size() - 1);
        pausedByOperator = state.pausedByOperator();
        failedIntervals = state.failedIntervals();
        version = state.version();
        long since = Math.max(0, nowEpochMillis - decision.atEpochMillis());
        intervalStartNanos = now - Math.min(since, config.interval().toMillis()) * 1_000_000;
        keep(decision);
        return true;
    }

    private static boolean safer(RolloutState a, RolloutState b) {
        int severity = Integer.compare(severity(a.status()), severity(b.status()));
        return severity > 0 || (severity == 0 && a.stage() < b.stage());
    }

    private static int severity(Status s) {
        return switch (s) {
            case ROLLED_BACK -> 2;
            case PAUSED -> 1;
            default -> 0;
        };
    }

    /** Every decision so far, oldest first. */
    public List<RolloutDecision> history() {
        return List.copyOf(history);
    }

    /** The shares in force: none while pending or rolled back, the last stage's once complete. */
    public RolloutAssignment.Stage inForce() {
        return switch (status) {
            case PENDING, ROLLED_BACK -> NOTHING;
            default -> stages.get(stage);
        };
    }

    /** Whether an interval has ended at {@code now} and the analysis should judge it. */
    public boolean intervalDue(long now) {
        return (status == Status.RUNNING || status == Status.PAUSED)
                && now - intervalStartNanos >= config.interval().toNanos();
    }

    /**
     * Whether the interval running at {@code now} has already breached a threshold with
     * {@code soFar}: a breach is acted on at once, not at the interval's end, so that the target
     * takes no more refusals than it must. A pass still waits for the whole interval.
     */
    public boolean breachedEarly(IntervalFigures soFar) {
        return (status == Status.RUNNING || status == Status.PAUSED)
                && RolloutAnalysis.judge(soFar, config.thresholds(), config.minRequests())
                        instanceof RolloutAnalysis.Verdict.Breach;
    }

    /**
     * Judges the interval that ended at {@code now} (or, breached early, ends now).
     *
     * @param noRoom why the target has no room for a given share, or empty when it has
     */
    public RolloutDecision onInterval(long now, long epochMillis, IntervalFigures figures,
            DoubleFunction<Optional<String>> noRoom) {
        intervalStartNanos = now;
        int before = stage;
        Optional<IntervalFigures> f = Optional.of(figures);
        RolloutAnalysis.Verdict v = RolloutAnalysis.judge(figures, config.thresholds(), config.minRequests());
        switch (v) {
            case RolloutAnalysis.Verdict.Breach b -> {
                failedIntervals++;
                String why = b.metric() + " " + b.value() + " above " + b.bound() + " (failed interval "
                        + failedIntervals + " of " + config.rollbackAfter() + ")";
                if (failedIntervals >= config.rollbackAfter()) {
                    status = Status.ROLLED_BACK;
                    return record(epochMillis, Action.ROLLED_BACK, ANALYSIS, before, why, f);
                }
                status = Status.PAUSED;
                return record(epochMillis, Action.PAUSED, ANALYSIS, before, why, f);
            }
            case RolloutAnalysis.Verdict.Inconclusive i -> {
                return record(epochMillis, Action.HELD, ANALYSIS, before, "inconclusive: " + i.attempts()
                        + " attempts on the target, " + i.needed() + " needed", f);
            }
            case RolloutAnalysis.Verdict.Pass p -> {
                if (status == Status.PAUSED) {
                    if (pausedByOperator) {
                        return record(epochMillis, Action.HELD, ANALYSIS, before, "paused by an operator", f);
                    }
                    status = Status.RUNNING;
                    return record(epochMillis, Action.RESUMED, ANALYSIS, before, "an interval within every threshold", f);
                }
                if (stage == stages.size() - 1) {
                    status = Status.COMPLETE;
                    return record(epochMillis, Action.COMPLETED, ANALYSIS, before, "the last step held clean", f);
                }
                Optional<String> full = noRoom.apply(stages.get(stage + 1).percent());
                if (full.isPresent()) {
                    return record(epochMillis, Action.HELD, ANALYSIS, before, "no room: " + full.get(), f);
                }
                stage++;
                return record(epochMillis, Action.ADVANCED, ANALYSIS, before, "an interval within every threshold", f);
            }
        }
    }

    /** Starts a pending rollout at its first stage. */
    public RolloutDecision start(long now, long epochMillis, String by) {
        require(status == Status.PENDING, "start");
        status = Status.RUNNING;
        stage = 0;
        intervalStartNanos = now;
        return record(epochMillis, Action.STARTED, by, -1, "started", Optional.empty());
    }

    /** Holds the share where it is until an operator resumes. */
    public RolloutDecision pause(long epochMillis, String by) {
        require(status == Status.RUNNING || status == Status.PAUSED, "pause");
        status = Status.PAUSED;
        pausedByOperator = true;
        return record(epochMillis, Action.PAUSED, by, stage, "paused by " + by, Optional.empty());
    }

    /** Resumes a paused rollout at its stage; the next interval starts now. */
    public RolloutDecision resume(long now, long epochMillis, String by) {
        require(status == Status.PAUSED, "resume");
        status = Status.RUNNING;
        pausedByOperator = false;
        intervalStartNanos = now;
        return record(epochMillis, Action.RESUMED, by, stage, "resumed by " + by, Optional.empty());
    }

    /** Moves one stage up at once (completes at the last); the next interval starts now. */
    public RolloutDecision advance(long now, long epochMillis, String by) {
        require(status == Status.RUNNING || status == Status.PAUSED, "advance");
        int before = stage;
        intervalStartNanos = now;
        if (stage == stages.size() - 1) {
            status = Status.COMPLETE;
            return record(epochMillis, Action.COMPLETED, by, before, "completed by " + by, Optional.empty());
        }
        stage++;
        return record(epochMillis, Action.ADVANCED, by, before, "advanced by " + by, Optional.empty());
    }

    /** Returns every request to the source at once: the emergency rollback. */
    public RolloutDecision rollback(long epochMillis, String by, String reason) {
        require(status != Status.ROLLED_BACK && status != Status.PENDING, "roll back");
        status = Status.ROLLED_BACK;
        return record(epochMillis, Action.ROLLED_BACK, by, stage, "rolled back by " + by + ": " + reason,
                Optional.empty());
    }

    private void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("rollout " + config.id() + " is " + status.wireName() + " and cannot " + what);
        }
    }

    private RolloutDecision record(long epochMillis, Action a, String by, int before, String reason,
            Optional<IntervalFigures> figures) {
        RolloutDecision d = new RolloutDecision(config.id(), epochMillis, a, by, before, stage,
                inForce().percent(), reason, figures);
        version++;
        keep(d);
        return d;
    }

    /** The figures the latest decision of the analysis was drawn from (this replica's or another's); empty before one. */
    public Optional<IntervalFigures> lastFigures() {
        return lastFigures;
    }

    private void keep(RolloutDecision d) {
        if (d.figures().isPresent()) {
            lastFigures = d.figures();
        }
        if (history.size() == MAX_HISTORY) {
            history.remove(0);
        }
        history.add(d);
    }
}
