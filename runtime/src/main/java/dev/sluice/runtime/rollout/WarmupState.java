package dev.sluice.runtime.rollout;

import java.util.Objects;

/**
 * Where a warm-up stands after a decision: what the journal keeps with the decision
 * ({@code warmup.state}), so that after a restart, and on every replica sharing the journal, the
 * tenant is paced at the same rate ({@link Warmups#restore}).
 *
 * @param status where it is
 * @param grown minutes of growth so far: with the definition, the rates in force
 * @param pausedByOperator whether an operator (not the analysis) paused it: only an operator resumes it then
 * @param startedAtEpochMillis wall time of its last start (0 before the first): its duration runs from there,
 *     and a scheduled one does not start again the same day
 * @param version how many decisions it has had: a later state has a higher one
 */
public record WarmupState(Warmup.Status status, int grown, boolean pausedByOperator, long startedAtEpochMillis,
        long version) {

    public WarmupState {
        Objects.requireNonNull(status, "status");
    }
}
