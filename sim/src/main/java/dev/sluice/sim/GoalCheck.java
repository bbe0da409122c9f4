package dev.sluice.sim;

import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Goals;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks a run against its scenario's {@link Goals}, beside the naive clients ({@code none}) of the
 * same run: one {@link Result} per goal, machine-checkable, so a test can assert that a goal holds.
 * Only {@code sluice} is held to every goal; other strategies only to zero lost requests.
 */
public final class GoalCheck {

    /** Goal names, in report order. */
    public static final List<String> GOALS = List.of("interactive_success", "provider_429_rate", "utilization",
            "jain", "timeouts", "lost", "interactive_p99_queue_wait");

    /** How far below none's utilisation still counts as "not below": the metric's own noise. */
    public static final double UTILIZATION_SLACK = 0.005;

    private GoalCheck() {}

    /**
     * One goal on one run.
     *
     * @param goal its name, one of {@link #GOALS}
     * @param applies whether the scenario declares it and the run meets its condition (interactive
     *     demand fits; a deployment saturated)
     * @param met whether it holds (true when it does not apply)
     * @param value what the run measured
     * @param bound what the goal asked of this run (the scenario's bound, or {@code none}'s figure
     *     where that is stricter)
     */
    public record Result(String goal, boolean applies, boolean met, double value, double bound) {

        /** A short phrase for a missed goal. */
        public String describe() {
            return switch (goal) {
                case "interactive_success" -> String.format(Locale.ROOT, "interactive success %.2f%% < %.2f%%",
                        value * 100, bound * 100);
                case "provider_429_rate" -> String.format(Locale.ROOT, "429 rate %.2f%% > %.1f%%", value * 100,
                        bound * 100);
                case "utilization" -> String.format(Locale.ROOT, "utilisation %.1f%% < %.1f%%", value * 100,
                        bound * 100);
                case "jain" -> String.format(Locale.ROOT, "Jain %.3f < %.2f", value, bound);
                case "timeouts" -> String.format(Locale.ROOT, "timeouts %.0f", value);
                case "lost" -> String.format(Locale.ROOT, "lost %.0f", value);
                default -> String.format(Locale.ROOT, "interactive p99 wait %.0f ms > %.0f ms", value, bound);
            };
        }
    }

    /** Every goal for {@code run}; {@code none} is the same run's naive clients, when there were any. */
    public static List<Result> check(RunReport run, Goals g, Optional<RunReport> none) {
        List<Result> out = new ArrayList<>();
        boolean sluice = run.strategy().equals("sluice");
        double interactive = run.interactiveSuccessRate();
        boolean hasInteractive = !Double.isNaN(interactive);
        {
            boolean applies = sluice && g.interactiveSuccess().isPresent() && hasInteractive && run.interactiveFits();
            double bound = g.interactiveSuccess().orElse(0.0);
            if (none.isPresent() && !Double.isNaN(none.get().interactiveSuccessRate())) {
                bound = Math.max(bound, none.get().interactiveSuccessRate());
            }
            out.add(result("interactive_success", applies, hasInteractive ? interactive : 1, bound, true));
        }
        {
            double bound = g.maxProvider429Rate().map(b -> run.providerChangesLimits()
                    ? Math.max(b, Goals.CUT_429_RATE) : b).orElse(1.0);
            out.add(result("provider_429_rate", sluice && g.maxProvider429Rate().isPresent(), run.provider429Rate(),
                    bound, false));
        }
        {
            boolean applies = sluice && g.minUtilization().isPresent() && !run.saturated().isEmpty();
            double bound = g.minUtilization().orElse(0.0);
            if (none.isPresent() && !Double.isNaN(none.get().utilization())) {
                // Within half a point of none's, and no more than the whole limit: a provider that
                // charges output at completion can be driven into debt past 100%.
                bound = Math.max(bound, Math.min(1.0, none.get().utilization()) - UTILIZATION_SLACK);
            }
            out.add(result("utilization", applies, Double.isNaN(run.utilization()) ? 1 : run.utilization(), bound,
                    true));
        }
        out.add(result("jain", sluice && g.minJainIndex().isPresent(), run.jainIndex(),
                g.minJainIndex().orElse(0.0), true));
        out.add(result("timeouts", sluice && g.noTimeouts(), run.timeouts(), 0, false));
        out.add(result("lost", true, run.lost(), 0, false));
        RunReport.ClassSummary ic = run.classes().get(TrafficClass.INTERACTIVE);
        out.add(result("interactive_p99_queue_wait", sluice && g.interactiveP99QueueWait().isPresent() && ic != null,
                ic == null ? 0 : ic.queueWaitP99Millis(),
                g.interactiveP99QueueWait().map(d -> (double) d.toMillis()).orElse(0.0), false));
        return out;
    }

    private static Result result(String goal, boolean applies, double value, double bound, boolean atLeast) {
        boolean ok = atLeast ? value >= bound : value <= bound;
        return new Result(goal, applies, !applies || ok, value, bound);
    }

    /** The goals {@code run} misses, as short phrases; empty when it meets all. */
    static List<String> misses(RunReport run, Goals g, Optional<RunReport> none) {
        return check(run, g, none).stream().filter(r -> !r.met()).map(Result::describe).toList();
    }
}
