package dev.sluice.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.sim.scenario.Goals;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Renders a sweep: per scenario, worst and median per metric for sluice beside none, and the goals. */
final class SweepTable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SweepTable() {}

    static String render(List<Sweep.ScenarioSweep> sweeps, int models, boolean shortForm) {
        StringBuilder sb = new StringBuilder();
        List<String[]> summary = new ArrayList<>();
        summary.add(new String[] {"scenario", "goals missed (members of " + models + ")"});
        for (Sweep.ScenarioSweep s : sweeps) {
            sb.append(String.format(Locale.ROOT, "%n== %s (seed %d, %s%s, %d members) ==%n", s.scenario().name(),
                    s.seed(), Tables.human(s.scenario().duration()), shortForm ? ", short form" : "", models));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"metric", "sluice worst", "sluice median", "none worst", "none median",
                "goal for sluice", "met"});
            List<String> missedGoals = new ArrayList<>();
            for (Sweep.Metric m : Sweep.Metric.values()) {
                Optional<Sweep.Spread> sl = Sweep.Spread.of(s.members(), m, true);
                Optional<Sweep.Spread> nn = Sweep.Spread.of(s.members(), m, false);
                long applies = 0;
                long met = 0;
                for (Sweep.Member x : s.members()) {
                    for (GoalCheck.Result r : x.goals()) {
                        if (r.goal().equals(m.goal()) && r.applies()) {
                            applies++;
                            met += r.met() ? 1 : 0;
                        }
                    }
                }
                String status = applies == 0 ? "n/a" : met == applies ? met + "/" + applies
                        : "MISS " + met + "/" + applies;
                if (applies > met) {
                    missedGoals.add(m.goal() + " " + (applies - met));
                }
                rows.add(new String[] {m.label, worst(m, sl), median(m, sl), worst(m, nn), median(m, nn),
                    goal(m, s.scenario().goals()), status});
            }
            sb.append(Tables.table(rows));
            Sweep.Member worst = worstMember(s);
            if (worst != null) {
                sb.append(String.format(Locale.ROOT, "most goals missed on m%d: %s%n  reproduce: bin/sluice sim "
                        + "--scenario %s --strategy all --model %d --seed %d%n", worst.model(),
                        String.join("; ", worst.providers()), s.scenario().name(), worst.model(), s.seed()));
            }
            summary.add(new String[] {s.scenario().name(), missedGoals.isEmpty() ? "none" : String.join(", ",
                    missedGoals)});
        }
        sb.append(String.format(Locale.ROOT, "%n== summary: goals sluice missed, by scenario ==%n"));
        sb.append(Tables.table(summary));
        return sb.toString();
    }

    private static Sweep.Member worstMember(Sweep.ScenarioSweep s) {
        Sweep.Member worst = null;
        for (Sweep.Member m : s.members()) {
            if (!m.missed().isEmpty() && (worst == null || m.missed().size() > worst.missed().size())) {
                worst = m;
            }
        }
        return worst;
    }

    private static String format(Sweep.Metric m, double v) {
        return switch (m) {
            case INTERACTIVE_SUCCESS, UTILIZATION -> Tables.pct(v, 1);
            case PROVIDER_429_RATE -> Tables.pct(v, 2);
            case JAIN -> String.format(Locale.ROOT, "%.3f", v);
            case TIMEOUTS, LOST -> String.format(Locale.ROOT, "%.0f", v);
        };
    }

    private static String worst(Sweep.Metric m, Optional<Sweep.Spread> s) {
        return s.map(x -> format(m, x.worst()) + " (m" + x.worstModel() + ")").orElse("-");
    }

    private static String median(Sweep.Metric m, Optional<Sweep.Spread> s) {
        return s.map(x -> format(m, x.median())).orElse("-");
    }

    private static String goal(Sweep.Metric m, Goals g) {
        return switch (m) {
            case INTERACTIVE_SUCCESS -> g.interactiveSuccess().map(b -> ">= " + Tables.pct(b, 1) + ", >= none, if it fits")
                    .orElse("off");
            case PROVIDER_429_RATE -> g.maxProvider429Rate().map(b -> "<= " + Tables.pct(b, 1)
                    + (b < Goals.CUT_429_RATE ? " (1% if provider cuts)" : "")).orElse("off");
            case UTILIZATION -> g.minUtilization().map(b -> ">= " + Tables.pct(b, 0) + ", >= none, if saturated")
                    .orElse("off");
            case JAIN -> g.minJainIndex().map(b -> String.format(Locale.ROOT, ">= %.2f", b)).orElse("off");
            case TIMEOUTS -> g.noTimeouts() ? "0" : "off";
            case LOST -> "0";
        };
    }

    static String json(List<Sweep.ScenarioSweep> sweeps) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode out = root.putArray("sweep");
        for (Sweep.ScenarioSweep s : sweeps) {
            ObjectNode sn = out.addObject();
            sn.put("scenario", s.scenario().name());
            sn.put("seed", s.seed());
            ArrayNode members = sn.putArray("members");
            for (Sweep.Member m : s.members()) {
                ObjectNode mn = members.addObject();
                mn.put("model", m.model());
                ArrayNode p = mn.putArray("providers");
                m.providers().forEach(p::add);
                for (String strategy : Sweep.STRATEGIES) {
                    ObjectNode r = mn.putObject(strategy);
                    var report = strategy.equals("none") ? m.none() : m.sluice();
                    for (Sweep.Metric metric : Sweep.Metric.values()) {
                        double v = metric.of(report);
                        if (Double.isNaN(v)) {
                            r.putNull(metric.goal());
                        } else {
                            r.put(metric.goal(), v);
                        }
                    }
                }
                ArrayNode goals = mn.putArray("goals");
                for (GoalCheck.Result g : m.goals()) {
                    goals.addObject().put("goal", g.goal()).put("applies", g.applies()).put("met", g.met())
                            .put("value", g.value()).put("bound", g.bound());
                }
            }
        }
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
