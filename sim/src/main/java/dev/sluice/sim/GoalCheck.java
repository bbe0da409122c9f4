package dev.sluice.sim;

import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Goals;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Checks a run against its scenario's {@link Goals}; says which goals it missed and by how much. */
final class GoalCheck {

    private GoalCheck() {}

    /**
     * The goals {@code run} misses, as short phrases; empty when it meets all. {@code none} is the
     * same scenario's {@code none} run, when there was one. Only {@code sluice} is held to every
     * goal; other strategies only to zero lost requests.
     */
    static List<String> misses(RunReport run, Goals g, Optional<RunReport> none) {
        List<String> out = new ArrayList<>();
        if (run.lost() != 0) {
            out.add("lost " + run.lost());
        }
        if (!run.strategy().equals("sluice")) {
            return out;
        }
        if (run.provider429Rate() > g.maxProvider429Rate()) {
            out.add(String.format(Locale.ROOT, "429 rate %.2f%% > %.1f%%", run.provider429Rate() * 100,
                    g.maxProvider429Rate() * 100));
        }
        none.ifPresent(n -> {
            double bound = n.provider429Rate() * g.maxShareOfNone429Rate();
            if (run.provider429Rate() > bound) {
                out.add(String.format(Locale.ROOT, "429 rate %.2f%% > none/10 = %.2f%%", run.provider429Rate() * 100,
                        bound * 100));
            }
        });
        if (!run.saturated().isEmpty() && run.saturatedUtilization() < g.minUtilization()) {
            out.add(String.format(Locale.ROOT, "utilisation %.1f%% < %.0f%%", run.saturatedUtilization() * 100,
                    g.minUtilization() * 100));
        }
        if (run.jainIndex() < g.minJainIndex()) {
            out.add(String.format(Locale.ROOT, "Jain %.3f < %.2f", run.jainIndex(), g.minJainIndex()));
        }
        RunReport.ClassSummary interactive = run.classes().get(TrafficClass.INTERACTIVE);
        g.interactiveP99QueueWait().ifPresent(max -> {
            double p99 = interactive == null ? 0 : interactive.queueWaitP99Millis();
            if (p99 > max.toMillis()) {
                out.add(String.format(Locale.ROOT, "interactive p99 wait %.0f ms > %d ms", p99, max.toMillis()));
            }
        });
        g.interactiveSuccessRate().ifPresent(min -> {
            double rate = interactive == null ? 1 : interactive.successRate();
            if (rate < min) {
                out.add(String.format(Locale.ROOT, "interactive success %.2f%% < %.1f%%", rate * 100, min * 100));
            }
        });
        return out;
    }
}
