package dev.sluice.sim;

import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.metrics.RunReport;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Renders comparisons as plain-text tables, one block per scenario. */
final class Tables {

    private Tables() {}

    static String render(List<SimCommand.Comparison> comparisons, boolean shortForm) {
        StringBuilder sb = new StringBuilder();
        for (SimCommand.Comparison c : comparisons) {
            if (c.reports().isEmpty()) {
                continue;
            }
            long seed = c.reports().get(0).json().path("seed").asLong();
            long model = c.reports().get(0).json().path("provider_model").asLong();
            sb.append(String.format(Locale.ROOT, "%n== %s (seed %d, %s%s, %d replica%s%s) ==%n", c.scenario().name(),
                    seed, human(c.scenario().duration()), shortForm ? ", short form" : "", c.scenario().replicas(),
                    c.scenario().replicas() == 1 ? "" : "s", model == 0 ? "" : ", provider model m" + model));
            if (model != 0) {
                c.reports().get(0).json().path("providers").properties()
                        .forEach(e -> sb.append("  ").append(e.getKey()).append(": ").append(e.getValue().asText())
                                .append('\n'));
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"strategy", "429 rate", "util", "goodput tok", "jain", "share err", "timeouts",
                "lost", "goals"});
            for (RunReport r : c.reports()) {
                List<String> misses = c.misses(r);
                String goals = !r.strategy().equals("sluice") ? (misses.isEmpty() ? "-" : "MISS: "
                        + String.join("; ", misses)) : misses.isEmpty() ? "all met" : "MISS: " + String.join("; ", misses);
                rows.add(new String[] {r.strategy(), pct(r.provider429Rate(), 2),
                    Double.isNaN(r.utilization()) ? "-" : pct(r.utilization(), 1),
                    String.format(Locale.ROOT, "%,d", r.goodputTokens()),
                    String.format(Locale.ROOT, "%.3f", r.jainIndex()),
                    String.format(Locale.ROOT, "%.3f", r.weightedShareError()), Long.toString(r.timeouts()),
                    Long.toString(r.lost()), goals});
            }
            sb.append(table(rows));
            Set<TrafficClass> present = EnumSet.noneOf(TrafficClass.class);
            c.reports().forEach(r -> present.addAll(r.classes().keySet()));
            List<String[]> classRows = new ArrayList<>();
            List<String> head = new ArrayList<>(List.of("per class: success / p99 queue wait"));
            present.forEach(t -> head.add(t.wireName()));
            classRows.add(head.toArray(String[]::new));
            for (RunReport r : c.reports()) {
                List<String> row = new ArrayList<>(List.of(r.strategy()));
                for (TrafficClass t : present) {
                    RunReport.ClassSummary s = r.classes().get(t);
                    row.add(s == null ? "-" : pct(s.successRate(), 2) + " / " + millis(s.queueWaitP99Millis()));
                }
                classRows.add(row.toArray(String[]::new));
            }
            sb.append(table(classRows));
        }
        return sb.toString();
    }

    static String table(List<String[]> rows) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            String[] r = rows.get(k);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < cols; i++) {
                line.append(i == 0 ? "" : " | ").append(pad(r[i], w[i], i > 0 && i < cols - 1 && k > 0));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
            if (k == 0) {
                StringBuilder sep = new StringBuilder();
                for (int i = 0; i < cols; i++) {
                    sep.append(i == 0 ? "" : "-|-").append("-".repeat(w[i]));
                }
                sb.append(sep).append('\n');
            }
        }
        return sb.toString();
    }

    private static String pad(String s, int width, boolean right) {
        String fill = " ".repeat(width - s.length());
        return right ? fill + s : s + fill;
    }

    static String pct(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f%%", v * 100);
    }

    private static String millis(double ms) {
        return ms >= 10_000 ? String.format(Locale.ROOT, "%.1f s", ms / 1000)
                : String.format(Locale.ROOT, "%.0f ms", ms);
    }

    static String human(java.time.Duration d) {
        long s = d.toSeconds();
        return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
