package dev.sluice.cli;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * The {@code sluice} command line: {@code serve}, {@code check-config}, {@code demo}, {@code sim},
 * {@code usage}, {@code report}, {@code admin}, {@code explain} and {@code rollout}. Exit status 0 on success, 1 on a runtime failure, 2 on bad arguments or a bad
 * configuration.
 */
public final class SluiceCommand {

    static final String USAGE = """
            Usage: sluice <command> [options]

              serve --config FILE [--port P] [--watch on|off]
                                                 run the gateway with a configuration file (reloaded
                                                 when it changes, unless --watch off)
              check-config FILE                  validate a configuration file and exit
              demo [--seconds N] [--port P] [--provider-model K [--seed S]]
                                                 gateway + mock providers + synthetic tenants, live summary
              sim [options]                      the deterministic simulator (sluice sim --help)
              usage [--since 24h] [--by tenant|key|profile|deployment|class] [--config FILE]
                                                 usage recorded in the ledger, per group
              admin VERB ...                     a running gateway's admin API: pause, resume, pauses, keys,
                                                 key-create, key-rotate, key-delete, limits, usage, reload
                                                 (sluice admin --help)
              rollout VERB ...                   a running gateway's rollouts: list, show, start, pause, resume,
                                                 advance, rollback (sluice rollout --help)
              warmup VERB ...                    a running gateway's warm-ups of scheduled jobs: list, show,
                                                 create, delete, pause, resume (sluice warmup --help)
              explain [--url URL] TRACE_ID [--at INSTANT]
                                                 why a request was refused, waited or answered as it was
                                                 (token in $SLUICE_ADMIN_TOKEN, as for admin)
              report [--since 7d] [--config FILE]
                                                 the weekly review: estimation error, stranded quota,
                                                 cache-read headroom, retry-after, top consumers, borrowing
            """;

    private SluiceCommand() {}

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        if (status != 0 || !(args.length > 0 && args[0].equals("serve"))) {
            System.exit(status);
        }
    }

    /** Runs one command; returns its exit status. {@code serve} returns only once the gateway stopped. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            out.print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case "serve" -> ServeCommand.run(Args.parse(rest, "--config", "--port", "--watch"), out, err);
                case "check-config" -> CheckConfigCommand.run(rest, out, err);
                case "demo" -> DemoCommand.run(Args.parse(rest, "--seconds", "--port", "--provider-model", "--seed"), out,
                        err);
                case "sim" -> dev.sluice.sim.SimCommand.run(rest, out, err);
                case "usage" -> UsageCommand.usage(Args.parse(rest, "--since", "--by", "--config"), out, err,
                        java.time.Clock.systemUTC());
                case "admin" -> AdminCommand.run(rest, out, err, System::getenv);
                case "explain" -> AdminCommand.explain(rest, out, err, System::getenv);
                case "rollout" -> RolloutCommand.run(rest, out, err, System::getenv);
                case "warmup" -> WarmupCommand.run(rest, out, err, System::getenv);
                case "report" -> UsageCommand.report(Args.parse(rest, "--since", "--config"), out, err,
                        java.time.Clock.systemUTC());
                default -> {
                    err.println("sluice: unknown command '" + args[0] + "'");
                    err.print(USAGE);
                    yield 2;
                }
            };
        } catch (Args.BadArguments e) {
            err.println("sluice " + args[0] + ": " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
    }
}
