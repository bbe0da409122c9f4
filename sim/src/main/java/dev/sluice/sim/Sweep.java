package dev.sluice.sim;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * Every scenario against {@code N} members of the provider family (members 1 to N of the run's
 * seed), with the naive retrying clients ({@code none}) and {@code sluice} in the same runs: the
 * instrument of issue 16 item 7. Per scenario it gives the worst and the median of each metric for
 * both, and per goal how many members {@code sluice} met it on.
 */
public final class Sweep {

    /** The strategies a sweep compares. */
    public static final List<String> STRATEGIES = List.of("none", "sluice");

    private Sweep() {}

    /** One member of the family on one scenario: both strategies, and sluice's goals beside none. */
    public record Member(int model, List<String> providers, RunReport none, RunReport sluice,
            List<GoalCheck.Result> goals) {

        /** The goals sluice missed on this member. */
        public List<GoalCheck.Result> missed() {
            return goals.stream().filter(g -> !g.met()).toList();
        }
    }

    /** One scenario over every member. */
    public record ScenarioSweep(Scenario scenario, long seed, List<Member> members) {

        /** Every goal sluice missed, with the member it missed it on. */
        public List<String> missed() {
            List<String> out = new ArrayList<>();
            for (Member m : members) {
                m.missed().forEach(g -> out.add("m" + m.model() + ": " + g.describe()));
            }
            return out;
        }
    }

    /** A metric of a run, and which way is better. */
    public enum Metric {
        INTERACTIVE_SUCCESS("interactive success", RunReport::interactiveSuccessRate, true),
        PROVIDER_429_RATE("provider 429 rate", RunReport::provider429Rate, false),
        UTILIZATION("utilisation (binding, saturated)", RunReport::utilization, true),
        JAIN("weighted Jain", RunReport::jainIndex, true),
        TIMEOUTS("timeouts (queued/generating)", r -> r.timeouts(), false),
        LOST("lost", r -> r.lost(), false);

        final String label;
        final ToDoubleFunction<RunReport> value;
        final boolean higherIsBetter;

        Metric(String label, ToDoubleFunction<RunReport> value, boolean higherIsBetter) {
            this.label = label;
            this.value = value;
            this.higherIsBetter = higherIsBetter;
        }

        /** The metric's value on {@code r}; NaN where it does not exist (no interactive class, no saturation). */
        public double of(RunReport r) {
            return value.applyAsDouble(r);
        }

        /** The name of the goal that bounds it. */
        String goal() {
            return switch (this) {
                case INTERACTIVE_SUCCESS -> "interactive_success";
                case PROVIDER_429_RATE -> "provider_429_rate";
                case UTILIZATION -> "utilization";
                case JAIN -> "jain";
                case TIMEOUTS -> "timeouts";
                case LOST -> "lost";
            };
        }
    }

    /**
     * The worst value (with the member it came from) and the median over the members where the
     * metric exists; empty when it exists on none.
     */
    public record Spread(double worst, int worstModel, double median) {

        static Optional<Spread> of(List<Member> members, Metric m, boolean sluice) {
            List<double[]> values = new ArrayList<>();
            for (Member x : members) {
                double v = m.of(sluice ? x.sluice() : x.none());
                if (!Double.isNaN(v)) {
                    values.add(new double[] {v, x.model()});
                }
            }
            if (values.isEmpty()) {
                return Optional.empty();
            }
            values.sort((a, b) -> Double.compare(a[0], b[0]));
            double[] worst = m.higherIsBetter ? values.getFirst() : values.getLast();
            int n = values.size();
            double median = n % 2 == 1 ? values.get(n / 2)[0] : (values.get(n / 2 - 1)[0] + values.get(n / 2)[0]) / 2;
            return Optional.of(new Spread(worst[0], (int) worst[1], median));
        }
    }

    /**
     * Runs every scenario against members {@code 1..models}.
     *
     * @param seed the seed of every run and every draw; empty for each scenario's own seed
     * @param progress told the name of each scenario as it starts
     */
    public static List<ScenarioSweep> run(List<Scenario> scenarios, int models, Optional<Long> seed,
            Consumer<String> progress) {
        if (models < 1) {
            throw new IllegalArgumentException("models: " + models + " (expected: >= 1)");
        }
        List<ScenarioSweep> out = new ArrayList<>();
        for (Scenario s : scenarios) {
            progress.accept(s.name());
            long sd = seed.orElse(s.seed());
            List<Member> members = new ArrayList<>();
            for (int k = 1; k <= models; k++) {
                RunReport none = Simulation.run(s, "none", sd, k, false, Optional.empty(), true);
                RunReport sluice = Simulation.run(s, "sluice", sd, k, false, Optional.empty(), true);
                List<String> providers = new ArrayList<>();
                sluice.json().path("providers").properties().forEach(e -> providers.add(e.getValue().asText()));
                members.add(new Member(k, providers, none, sluice, GoalCheck.check(sluice, s.goals(), Optional.of(none))));
            }
            out.add(new ScenarioSweep(s, sd, members));
        }
        return out;
    }
}
