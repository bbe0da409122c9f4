package dev.sluice.runtime.rollout;

import java.util.List;

/**
 * A rollout as the admin API and the command line show it.
 *
 * @param id its name
 * @param profile the profile whose traffic moves
 * @param from the source deployment
 * @param to the target deployment
 * @param status where it is
 * @param stage the stage in force (-1 before the first)
 * @param stages how many stages it has
 * @param percent the target's share in force, in percent, of tenants not listed first
 * @param listedPercent the same for tenants listed first
 * @param failedIntervals intervals that breached a threshold so far
 * @param history its decisions, oldest first
 */
public record RolloutView(String id, String profile, String from, String to, Rollout.Status status, int stage,
        int stages, double percent, double listedPercent, int failedIntervals, List<RolloutDecision> history) {

    public RolloutView {
        history = List.copyOf(history);
    }

    static RolloutView of(Rollout r) {
        RolloutAssignment.Stage s = r.inForce();
        return new RolloutView(r.config().id(), r.config().profile(), r.config().from(), r.config().to(), r.status(),
                r.stage(), r.stages().size(), s.percent(), s.listedPercent(), r.failedIntervals(), r.history());
    }
}
