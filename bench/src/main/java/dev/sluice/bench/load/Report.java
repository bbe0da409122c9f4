package dev.sluice.bench.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The Markdown report of a harness run: the measurements, then Sluice against nginx and direct calls,
 * then, when the bare proxy was measured, the HTTP stack's floor against nginx and Sluice.
 */
final class Report {

    /** Sluice's added p50 latency may be at most this multiple of nginx's. */
    static final double LATENCY_GOAL = 2.0;
    /** Sluice's throughput must be at least this share of nginx's. */
    static final double THROUGHPUT_GOAL = 0.70;

    private Report() {}

    static String markdown(String command, List<String> environment, List<LoadResult> results) {
        StringBuilder b = new StringBuilder();
        b.append("Command:\n\n    ").append(command).append("\n\n");
        for (String e : environment) {
            b.append("* ").append(e).append('\n');
        }
        b.append("\n| form | conns | load | target | req/s | p50 ms | p99 ms | max ms | errors | missed "
                + "| proxy CPU µs/req | harness CPU µs/req |\n");
        b.append("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (LoadResult r : results) {
            LoadSpec s = r.spec();
            b.append("| ").append(form(s)).append(" | ").append(s.connections()).append(" | ").append(load(s))
                    .append(" | ").append(s.target()).append(" | ").append(fmt("%,.0f", r.throughput()))
                    .append(" | ").append(ms(r.p50Micros())).append(" | ").append(ms(r.p99Micros()))
                    .append(" | ").append(ms(r.maxMicros())).append(" | ").append(r.errors())
                    .append(" | ").append(s.openLoop() ? Long.toString(r.missed()) : "-")
                    .append(" | ").append(micros(r.proxyCpuMicros())).append(" | ").append(micros(r.harnessCpuMicros()))
                    .append(" |\n");
        }
        List<String> comparison = comparison(results);
        if (!comparison.isEmpty()) {
            b.append('\n');
            comparison.forEach(line -> b.append(line).append('\n'));
        }
        List<String> stack = stack(results);
        if (!stack.isEmpty()) {
            b.append('\n');
            stack.forEach(line -> b.append(line).append('\n'));
        }
        List<String> observing = observing(results);
        if (!observing.isEmpty()) {
            b.append('\n');
            observing.forEach(line -> b.append(line).append('\n'));
        }
        List<String> errors = new ArrayList<>();
        for (LoadResult r : results) {
            r.firstError().ifPresent(e -> errors.add("* " + r.spec().target() + ", " + form(r.spec()) + ", "
                    + r.spec().connections() + " conns: " + e.replace('\n', ' ')));
        }
        if (!errors.isEmpty()) {
            b.append("\nFirst error of each run that had one:\n\n");
            errors.forEach(e -> b.append(e).append('\n'));
        }
        return b.toString();
    }

    /**
     * One row per run shape: added p50 latency over direct calls and throughput, Sluice against nginx
     * (or against direct calls when nginx was not measured).
     */
    static List<String> comparison(List<LoadResult> results) {
        List<String> lines = new ArrayList<>();
        boolean anyNginx = results.stream().anyMatch(r -> r.spec().target().equals("nginx"));
        if (anyNginx) {
            lines.add("| form | conns | load | direct p50 ms | nginx added p50 ms | Sluice added p50 ms "
                    + "| Sluice/nginx added p50 (goal <= 2) | Sluice req/s as % of nginx (goal >= 70%) | Sluice/nginx CPU per request |");
        } else {
            lines.add("| form | conns | load | direct p50 ms | Sluice added p50 ms | Sluice req/s as % of direct |");
        }
        lines.add(anyNginx ? "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |" : "| --- | ---: | --- | ---: | ---: | ---: |");
        int header = lines.size();
        for (LoadResult d : results) {
            if (!d.spec().target().equals("direct")) {
                continue;
            }
            Optional<LoadResult> n = same(results, d.spec(), "nginx");
            Optional<LoadResult> s = same(results, d.spec(), "sluice");
            if (s.isEmpty()) {
                continue;
            }
            String prefix = "| " + form(d.spec()) + " | " + d.spec().connections() + " | " + load(d.spec()) + " | "
                    + ms(d.p50Micros()) + " | ";
            long sluiceAdded = s.get().p50Micros() - d.p50Micros();
            if (anyNginx && n.isPresent()) {
                long nginxAdded = n.get().p50Micros() - d.p50Micros();
                String ratio = nginxAdded > 0 ? fmt("%.2f", (double) sluiceAdded / nginxAdded)
                        + (sluiceAdded <= LATENCY_GOAL * nginxAdded ? " (met)" : " (missed)") : "n/a";
                double share = n.get().throughput() > 0 ? s.get().throughput() / n.get().throughput() : 0;
                OptionalDouble sc = s.get().proxyCpuMicros();
                OptionalDouble nc = n.get().proxyCpuMicros();
                String cpu = sc.isPresent() && nc.isPresent() && nc.getAsDouble() > 0
                        ? fmt("%.1f×", sc.getAsDouble() / nc.getAsDouble()) : "-";
                lines.add(prefix + ms(nginxAdded) + " | " + ms(sluiceAdded) + " | " + ratio + " | "
                        + fmt("%.0f%%", share * 100) + (share >= THROUGHPUT_GOAL ? " (met)" : " (missed)") + " | " + cpu + " |");
            } else if (!anyNginx) {
                double share = d.throughput() > 0 ? s.get().throughput() / d.throughput() : 0;
                lines.add(prefix + ms(sluiceAdded) + " | " + fmt("%.0f%%", share * 100) + " |");
            }
        }
        return lines.size() == header ? List.of() : lines;
    }

    /**
     * One row per run shape the bare proxy was measured in: its rate as a share of nginx's
     * (what the stack alone gives up), Sluice's rate as a share of its (what Sluice's own work
     * costs), and the CPU time each proxy spends per request. Empty without bare proxy rows.
     */
    static List<String> stack(List<LoadResult> results) {
        List<String> rows = new ArrayList<>();
        for (LoadResult v : results) {
            if (!v.spec().target().equals("bare")) {
                continue;
            }
            Optional<LoadResult> n = same(results, v.spec(), "nginx");
            Optional<LoadResult> s = same(results, v.spec(), "sluice");
            rows.add("| " + form(v.spec()) + " | " + v.spec().connections() + " | " + load(v.spec()) + " | "
                    + n.map(nginx -> share(v, nginx)).orElse("-") + " | " + s.map(sluice -> share(sluice, v)).orElse("-")
                    + " | " + micros(v.proxyCpuMicros()) + " | " + s.map(sluice -> micros(sluice.proxyCpuMicros())).orElse("-")
                    + " |");
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        lines.add("| form | conns | load | bare proxy req/s as % of nginx | Sluice req/s as % of bare proxy "
                + "| bare proxy CPU µs/req | Sluice CPU µs/req |");
        lines.add("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
        lines.addAll(rows);
        return lines;
    }

    /** Closed-loop throughput may drop by at most this share when the ledger and metrics are on. */
    static final double OBSERVING_THROUGHPUT_GOAL = 0.10;
    /** At an open-loop rate, the ledger and metrics may add at most this to the p50, in microseconds. */
    static final long OBSERVING_P50_GOAL_MICROS = 50;

    /**
     * One row per run shape both Sluices were measured in: what the ledger and metrics together
     * cost, as the observed Sluice's rate against the plain one's, its p50 less the plain one's,
     * and both CPU times per request. Empty without observed rows.
     */
    static List<String> observing(List<LoadResult> results) {
        List<String> rows = new ArrayList<>();
        for (LoadResult o : results) {
            if (!o.spec().target().equals("observed")) {
                continue;
            }
            Optional<LoadResult> s = same(results, o.spec(), "sluice");
            if (s.isEmpty()) {
                continue;
            }
            LoadResult plain = s.get();
            double ratio = plain.throughput() > 0 ? o.throughput() / plain.throughput() : 0;
            long added = o.p50Micros() - plain.p50Micros();
            String goal = o.spec().openLoop()
                    ? (added <= OBSERVING_P50_GOAL_MICROS ? " (met)" : " (missed)")
                    : (ratio >= 1 - OBSERVING_THROUGHPUT_GOAL ? " (met)" : " (missed)");
            rows.add("| " + form(o.spec()) + " | " + o.spec().connections() + " | " + load(o.spec()) + " | "
                    + fmt("%,.0f", plain.throughput()) + " | " + fmt("%,.0f", o.throughput()) + " | "
                    + fmt("%.0f%%", ratio * 100) + (o.spec().openLoop() ? "" : goal) + " | " + ms(plain.p50Micros()) + " | "
                    + ms(o.p50Micros()) + " | " + ms(added) + (o.spec().openLoop() ? goal : "") + " | "
                    + micros(plain.proxyCpuMicros()) + " | " + micros(o.proxyCpuMicros()) + " |");
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        lines.add("| form | conns | load | off req/s | on req/s | on/off (goal closed loop >= 90%) | off p50 ms | on p50 ms "
                + "| added p50 ms (goal open loop <= 0.05) | off CPU µs/req | on CPU µs/req |");
        lines.add("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        lines.addAll(rows);
        return lines;
    }

    /** {@code part}'s rate as a percentage of {@code whole}'s. */
    private static String share(LoadResult part, LoadResult whole) {
        return whole.throughput() > 0 ? fmt("%.0f%%", part.throughput() / whole.throughput() * 100) : "-";
    }

    private static Optional<LoadResult> same(List<LoadResult> results, LoadSpec spec, String target) {
        return results.stream().filter(r -> r.spec().target().equals(target) && r.spec().streaming() == spec.streaming()
                && r.spec().connections() == spec.connections() && r.spec().rate() == spec.rate()).findFirst();
    }

    static String form(LoadSpec s) {
        return s.streaming() ? "stream" : "json";
    }

    static String load(LoadSpec s) {
        return s.openLoop() ? fmt("open %,.0f/s", s.rate()) : "closed";
    }

    static String micros(OptionalDouble v) {
        return v.isPresent() ? fmt("%.0f", v.getAsDouble()) : "-";
    }

    static String ms(long micros) {
        return fmt("%.2f", micros / 1000.0);
    }

    private static String fmt(String pattern, Object... values) {
        return String.format(Locale.ROOT, pattern, values);
    }
}
