package dev.sluice.cli;

import dev.sluice.config.ConfigException;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import java.io.PrintStream;
import java.nio.file.Path;

/** {@code sluice check-config FILE}: validates a configuration and says what it holds. */
final class CheckConfigCommand {

    private CheckConfigCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length != 1) {
            throw new Args.BadArguments("expected exactly one FILE");
        }
        SluiceConfig c;
        try {
            c = ConfigLoader.load(Path.of(args[0]));
        } catch (ConfigException e) {
            err.println(args[0] + ": " + e.getMessage());
            return 2;
        }
        out.printf("%s: valid: %d deployments, %d profiles, %d tenants, %d keys%n", args[0], c.deployments().size(),
                c.profiles().size(), c.tenants().size(), c.keys().size());
        out.println("  ledger: " + (c.ledger().kind() == LedgerSettings.Kind.OFF ? "off"
                : c.ledger().kind().wireName() + " at " + c.ledger().describeLocation()));
        for (String missing : c.missingEnvironment()) {
            out.println("  warning: " + missing + " (needed to serve)");
        }
        return 0;
    }
}
