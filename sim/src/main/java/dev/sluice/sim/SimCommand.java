package dev.sluice.sim;

import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import dev.sluice.sim.strategy.Strategy;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The {@code sluice sim} command: runs strategies on scenarios in virtual time and prints the
 * comparison as a table or as JSON (one object per run).
 *
 * <pre>
 * sluice sim --scenario FILE|NAME|all --strategy NAME[,NAME]|all [--seed N] [--model K] [--format table|json]
 *            [--short] [--scenarios DIR] [--check-invariants] [--redis URI] [--replicas N] [--no-adaptive]
 *            [--e2e [--e2e-duration 60s]]
 * sluice sim --sweep N [--scenario FILE|NAME|all] [--seed S] [--short] [--format table|json]
 * </pre>
 *
 * <p>{@code --model K} runs against member K of the provider family drawn from the seed (0, the
 * default, is the reference model); {@code --sweep N} runs every scenario against members 1 to N
 * with {@code none} and {@code sluice} and prints, per scenario, the worst and the median of each
 * metric for both, and the goals. {@code --replicas N} runs the scenario on N replicas sharing one
 * quota store (Redis with {@code --redis}, each replica its own governor, queue, adaptive control and
 * fleet view; else the store modelled in memory) behind a proxy spreading arrivals unevenly.
 */
public final class SimCommand {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SimCommand() {}

    /** Runs with the process's standard streams; returns the exit status (0 ok, 1 goal or run failure, 2 usage). */
    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    /**
     * Runs the command. Exit status: 0 when every run ended with no lost request, 1 when one lost a
     * request or failed, 2 on bad arguments or a bad scenario file. Missed goals are reported, not
     * failed on: the table says so.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("sluice sim: " + e.getMessage());
            err.println(Options.USAGE);
            return 2;
        }
        if (o.help()) {
            out.println(Options.USAGE);
            return 0;
        }
        List<Scenario> scenarios;
        try {
            scenarios = scenarios(o);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            err.println("sluice sim: " + e.getMessage());
            return 2;
        }
        if (o.sweep().isPresent()) {
            return sweep(o, scenarios, out, err);
        }
        List<String> strategies = o.strategies();
        if (o.e2e()) {
            // The other strategies are models inside the simulator; only the gateway runs over HTTP.
            if (!strategies.contains("sluice")) {
                err.println("sluice sim: --e2e runs the real gateway, strategy sluice only (got "
                        + String.join(",", strategies) + ")");
                return 2;
            }
            strategies = List.of("sluice");
        }
        List<Comparison> comparisons = new ArrayList<>();
        boolean failed = false;
        for (Scenario s : scenarios) {
            Scenario run = o.shortForm() ? s.shortForm() : s;
            if (o.replicas().isPresent()) {
                run = run.onReplicas(o.replicas().getAsInt());
            }
            if (o.e2e() && run.duration().compareTo(o.e2eDuration()) > 0) {
                run = run.scaledTo(o.e2eDuration());
            }
            long seed = o.seed().orElse(run.seed());
            List<RunReport> reports = new ArrayList<>();
            for (String strategy : strategies) {
                try {
                    reports.add(o.e2e()
                            ? EndToEnd.run(run, strategy, seed, o.model(), o.e2eDuration(), !o.noAdaptive())
                            : Simulation.run(run, strategy, seed, o.model(), o.checkInvariants(), o.redis(),
                                    !o.noAdaptive()));
                } catch (RuntimeException e) {
                    err.println("sluice sim: " + s.name() + "/" + strategy + " seed " + seed + " failed: " + e);
                    failed = true;
                }
            }
            Comparison c = new Comparison(run, reports);
            failed |= reports.stream().anyMatch(r -> r.lost() != 0);
            comparisons.add(c);
        }
        if (o.format().equals("json")) {
            out.println(json(comparisons));
        } else {
            out.print(Tables.render(comparisons, o.shortForm()));
        }
        return failed ? 1 : 0;
    }

    private static int sweep(Options o, List<Scenario> scenarios, PrintStream out, PrintStream err) {
        List<Scenario> runs = scenarios.stream().map(s -> o.shortForm() ? s.shortForm() : s).toList();
        List<Sweep.ScenarioSweep> result;
        try {
            result = Sweep.run(runs, o.sweep().getAsInt(), o.seed(),
                    name -> err.println("sluice sim: sweeping " + name + " over " + o.sweep().getAsInt() + " members"));
        } catch (RuntimeException e) {
            err.println("sluice sim: the sweep failed: " + e);
            return 1;
        }
        if (o.format().equals("json")) {
            out.println(SweepTable.json(result));
        } else {
            out.print(SweepTable.render(result, o.sweep().getAsInt(), o.shortForm()));
        }
        boolean lost = result.stream().flatMap(s -> s.members().stream())
                .anyMatch(m -> m.none().lost() != 0 || m.sluice().lost() != 0);
        return lost ? 1 : 0;
    }

    private static String json(List<Comparison> comparisons) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode runs = root.putArray("runs");
        for (Comparison c : comparisons) {
            for (RunReport r : c.reports()) {
                ObjectNode j = r.json().deepCopy();
                ArrayNode misses = j.putArray("goals_missed");
                c.misses(r).forEach(misses::add);
                ArrayNode goals = j.putArray("goals");
                for (GoalCheck.Result g : c.goals(r)) {
                    goals.addObject().put("goal", g.goal()).put("applies", g.applies()).put("met", g.met())
                            .put("value", g.value()).put("bound", g.bound());
                }
                runs.add(j);
            }
        }
        try {
            return MAPPER.writer(new DefaultPrettyPrinter()).writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Scenario> scenarios(Options o) {
        if (o.scenario().equals("all")) {
            Path dir = o.scenariosDir();
            List<Path> files;
            try (Stream<Path> s = Files.list(dir)) {
                files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
            } catch (IOException e) {
                throw new IllegalArgumentException("--scenarios " + dir + ": not a readable directory");
            }
            return files.stream().map(ScenarioLoader::load).toList();
        }
        Path p = Path.of(o.scenario());
        if (!Files.exists(p)) {
            Path bundled = o.scenariosDir().resolve(o.scenario() + ".yaml");
            if (Files.exists(bundled)) {
                p = bundled;
            } else {
                throw new IllegalArgumentException("--scenario " + o.scenario() + ": no such file, and no "
                        + bundled);
            }
        }
        return List.of(ScenarioLoader.load(p));
    }

    /** One scenario's runs, with the goals each missed. */
    record Comparison(Scenario scenario, List<RunReport> reports) {
        List<String> misses(RunReport r) {
            return GoalCheck.misses(r, scenario.goals(), none());
        }

        List<GoalCheck.Result> goals(RunReport r) {
            return GoalCheck.check(r, scenario.goals(), none());
        }

        private Optional<RunReport> none() {
            return reports.stream().filter(x -> x.strategy().equals("none")).findFirst();
        }
    }

    /** Parsed command-line options. */
    record Options(String scenario, List<String> strategies, Optional<Long> seed, int model,
            java.util.OptionalInt sweep, String format, boolean shortForm, Path scenariosDir, boolean checkInvariants,
            Optional<String> redis, boolean noAdaptive, boolean e2e, java.time.Duration e2eDuration, boolean help,
            java.util.OptionalInt replicas) {

        static final String USAGE = "usage: sluice sim --scenario FILE|NAME|all --strategy "
                + String.join("|", Strategy.NAMES) + "[,...]|all [--seed N] [--model K] [--format table|json]"
                + " [--short] [--scenarios DIR] [--check-invariants] [--redis URI] [--replicas N] [--no-adaptive]"
                + " [--e2e [--e2e-duration 60s]]\n"
                + "       sluice sim --sweep N [--scenario FILE|NAME|all] [--seed S] [--short] [--format table|json]";

        static Options parse(String[] args) {
            String scenario = null;
            String strategy = "all";
            Optional<Long> seed = Optional.empty();
            int model = 0;
            java.util.OptionalInt sweep = java.util.OptionalInt.empty();
            String format = "table";
            boolean shortForm = false;
            Path dir = Path.of("scenarios");
            boolean check = false;
            Optional<String> redis = Optional.empty();
            boolean noAdaptive = false;
            boolean e2e = false;
            boolean help = false;
            java.util.OptionalInt replicas = java.util.OptionalInt.empty();
            java.time.Duration e2eDuration = java.time.Duration.ofSeconds(60);
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--scenario" -> scenario = value(args, ++i, a);
                    case "--strategy" -> strategy = value(args, ++i, a);
                    case "--seed" -> {
                        String v = value(args, ++i, a);
                        try {
                            seed = Optional.of(Long.parseLong(v));
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("--seed: " + v + " (expected: a whole number)");
                        }
                    }
                    case "--model" -> model = whole(a, value(args, ++i, a), 0);
                    case "--sweep" -> sweep = java.util.OptionalInt.of(whole(a, value(args, ++i, a), 1));
                    case "--format" -> format = value(args, ++i, a).toLowerCase(Locale.ROOT);
                    case "--short" -> shortForm = true;
                    case "--scenarios" -> dir = Path.of(value(args, ++i, a));
                    case "--check-invariants" -> check = true;
                    case "--redis" -> redis = Optional.of(value(args, ++i, a));
                    case "--no-adaptive" -> noAdaptive = true;
                    case "--replicas" -> replicas = java.util.OptionalInt.of(whole(a, value(args, ++i, a), 1));
                    case "--e2e" -> e2e = true;
                    case "--e2e-duration" -> e2eDuration = dev.sluice.sim.scenario.Durations.parse("--e2e-duration",
                            value(args, ++i, a));
                    case "--help", "-h" -> help = true;
                    default -> throw new IllegalArgumentException("unknown argument " + a);
                }
            }
            List<String> strategies = strategy.equals("all") ? Strategy.NAMES : List.of(strategy.split(","));
            if (help) {
                return new Options("", strategies, seed, model, sweep, format, shortForm, dir, check, redis, noAdaptive,
                        e2e, e2eDuration, true, replicas);
            }
            if (sweep.isPresent()) {
                if (scenario == null) {
                    scenario = "all";
                }
                if (e2e || model != 0 || replicas.isPresent()) {
                    throw new IllegalArgumentException("--sweep draws its own members and runs in virtual time"
                            + " (not with --model, --replicas or --e2e)");
                }
            }
            if (e2e && replicas.isPresent()) {
                throw new IllegalArgumentException("--replicas runs in virtual time (not with --e2e)");
            }
            if (scenario == null) {
                throw new IllegalArgumentException("--scenario is required");
            }
            for (String st : strategies) {
                if (!Strategy.NAMES.contains(st)) {
                    throw new IllegalArgumentException("--strategy: " + strategy + " (expected: one or more of "
                            + Strategy.NAMES + ", comma-separated, or all)");
                }
            }
            if (!format.equals("table") && !format.equals("json")) {
                throw new IllegalArgumentException("--format: " + format + " (expected: table or json)");
            }
            return new Options(scenario, strategies, seed, model, sweep, format, shortForm, dir, check, redis,
                    noAdaptive, e2e, e2eDuration, false, replicas);
        }

        private static int whole(String flag, String v, int min) {
            try {
                int n = Integer.parseInt(v);
                if (n >= min) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // named below
            }
            throw new IllegalArgumentException(flag + ": " + v + " (expected: a whole number >= " + min + ")");
        }

        private static String value(String[] args, int i, String flag) {
            if (i >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            return args[i];
        }
    }

    /** For {@code java -cp ... dev.sluice.sim.SimCommand}. */
    public static void main(String[] args) {
        System.exit(run(args));
    }
}
