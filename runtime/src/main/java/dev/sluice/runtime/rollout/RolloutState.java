package dev.sluice.runtime.rollout;

import java.util.Objects;

/**
 * Where a rollout stands after a decision: what is kept in the journal with the decision, so that
 * the rollout resumes there after a restart and on every replica ({@link Rollouts#restore}).
 *
 * @param status where it is
 * @param stage the stage in force, -1 before the first
 * @param pausedByOperator whether an operator (not the analysis) paused it: only an operator resumes it then
 * @param failedIntervals intervals that breached a threshold so far
 * @param version how many decisions the rollout has had: a later state has a higher one
 */
public record RolloutState(Rollout.Status status, int stage, boolean pausedByOperator, int failedIntervals,
        long version) {

    public RolloutState {
        Objects.requireNonNull(status, "status");
    }
}
