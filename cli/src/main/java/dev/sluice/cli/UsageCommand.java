package dev.sluice.cli;

import dev.sluice.config.ConfigException;
import dev.sluice.ledger.LedgerException;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.ledger.query.Review;
import dev.sluice.ledger.query.Usage;
import dev.sluice.ledger.query.UsageRow;
import dev.sluice.ledger.query.Window;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.yaml.YamlNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@code sluice usage} and {@code sluice report}: the ledger's queries, printed. The ledger is the
 * one the configuration file names ({@code --config}), or the default SQLite file.
 */
final class UsageCommand {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneOffset.UTC);

    private UsageCommand() {}

    /** {@code sluice usage [--since 24h] [--by tenant] [--config FILE]}. */
    static int usage(Args args, PrintStream out, PrintStream err, Clock clock) {
        Duration since = since(args, Duration.ofHours(24));
        String byName = args.get("--by").orElse("tenant");
        Grouping by = Grouping.byWireName(byName).orElseThrow(() -> new Args.BadArguments("--by: '" + byName
                + "' (expected: one of " + Arrays.stream(Grouping.values()).map(Grouping::wireName).toList() + ")"));
        LedgerQueries q;
        try {
            q = LedgerQueries.open(settings(args), clock);
        } catch (ConfigException e) {
            err.println(args.get("--config").orElse("") + ": " + e.getMessage());
            return 2;
        } catch (LedgerException e) {
            err.println("sluice usage: " + e.getMessage());
            return 1;
        }
        Usage u = q.usage(Window.last(since, clock.instant()), by);
        out.println("usage by " + by.wireName() + ", " + period(u.covered()));
        out.println();
        TextTable t = new TextTable(by.wireName(), "requests", "answered", "refused", "provider 429", "client gone",
                "5xx", "input", "output", "cache read", "est. input", "est. output", "cost $", "mean ms");
        for (UsageRow r : u.rows()) {
            add(t, name(r.group()), r);
        }
        add(t, "total", u.total());
        t.print(out);
        return 0;
    }

    /** {@code sluice report [--since 7d] [--config FILE]}. */
    static int report(Args args, PrintStream out, PrintStream err, Clock clock) {
        Duration since = since(args, Duration.ofDays(7));
        LedgerQueries q;
        try {
            q = LedgerQueries.open(settings(args), clock);
        } catch (ConfigException e) {
            err.println(args.get("--config").orElse("") + ": " + e.getMessage());
            return 2;
        } catch (LedgerException e) {
            err.println("sluice report: " + e.getMessage());
            return 1;
        }
        Review r = q.review(Window.last(since, clock.instant()));
        out.println("review, " + period(r.covered()));

        section(out, "estimation error by route (actual / estimate; answered attempts with the provider's usage)");
        TextTable est = new TextTable("profile", "deployment", "dimension", "samples", "bias", "p50", "p95",
                "all tokens");
        r.estimation().forEach(e -> est.row(name(e.profile()), e.deployment(), e.dimension(), e.samples(),
                signedPercent(e.bias()), e.p50Ratio(), e.p95Ratio(), e.tokenRatio()));
        print(out, est);

        section(out, "stranded quota (reserved beyond use, settled attempts, as each deployment's limit counts)");
        TextTable str = new TextTable("deployment", "dimension", "attempts", "reserved", "used", "stranded", "share",
                "overage");
        r.stranded().forEach(s -> str.row(s.deployment(), s.dimension(), s.settledAttempts(), s.reserved(), s.used(),
                s.stranded(), percent(s.strandedShare()), s.overage()));
        print(out, str);

        section(out, "cache-read headroom (input read from a cache that the provider's input limit did not count)");
        TextTable cache = new TextTable("deployment", "prompt", "cache read", "uncounted", "share");
        r.cacheHeadroom().forEach(c -> cache.row(c.deployment(), c.promptTokens(), c.cacheReadTokens(),
                c.uncountedTokens(), percent(c.uncountedShare())));
        print(out, cache);

        section(out, "retry-after asked for, ms (quantiles: at most)");
        TextTable ra = new TextTable("source", "provider", "limiter", "samples", "mean", "p50", "p95", "max");
        r.retryAfter().forEach(a -> ra.row(a.source(), name(a.provider()), a.limiter(), a.samples(),
                Math.round(a.meanMillis()), a.p50Millis(), a.p95Millis(), a.maxMillis()));
        print(out, ra);

        section(out, "top consumers per dimension");
        TextTable top = new TextTable("dimension", "rank", "tenant", "key", "amount", "share");
        r.topConsumers().forEach(c -> top.row(c.dimension(), c.rank(), c.tenant(), c.apiKey(), c.amount(),
                percent(c.share())));
        print(out, top);

        section(out, "borrowing by tenant (admitted beyond the guaranteed share of a deployment)");
        TextTable bor = new TextTable("tenant", "requests", "borrowed", "share", "input", "borrowed input", "output",
                "borrowed output");
        r.borrowing().forEach(b -> bor.row(b.tenant(), b.requests(), b.borrowedRequests(), percent(b.borrowedShare()),
                b.inputTokens(), b.borrowedInputTokens(), b.outputTokens(), b.borrowedOutputTokens()));
        print(out, bor);
        return 0;
    }

    private static LedgerSettings settings(Args args) {
        return args.get("--config").map(f -> ConfigLoader.load(Path.of(f)).ledger()).orElse(LedgerSettings.defaults());
    }

    private static Duration since(Args args, Duration fallback) {
        return args.get("--since").map(s -> {
            try {
                Duration d = YamlNode.parseDuration("--since", s);
                if (!d.isPositive()) {
                    throw new Args.BadArguments("--since: '" + s + "' (expected: > 0)");
                }
                return d;
            } catch (ConfigException e) {
                throw new Args.BadArguments("--since: '" + s + "' (expected: a duration such as 24h, 7d, 90m)");
            }
        }).orElse(fallback);
    }

    private static void add(TextTable t, String name, UsageRow r) {
        t.row(name, r.requests(), r.answered(), r.refusedLocally(), r.providerRejected(), r.clientGone(), r.failed(),
                r.inputTokens(), r.outputTokens(), r.cacheReadTokens(), r.estimatedInputTokens(),
                r.estimatedOutputTokens(), new TextTable.Formatted(dollars(r.costMicros())), Math.round(r.meanLatencyMillis()));
    }

    /** Micro-dollars as dollars to the cent, or to the micro-dollar below a cent. */
    static String dollars(long micros) {
        return micros == 0 || micros >= 10_000 ? String.format(java.util.Locale.ROOT, "%.2f", micros / 1e6)
                : java.math.BigDecimal.valueOf(micros, 6).stripTrailingZeros().toPlainString();
    }

    private static String period(Window w) {
        return TIME.format(w.from()) + " to " + TIME.format(w.to()) + " UTC";
    }

    private static void section(PrintStream out, String title) {
        out.println();
        out.println(title);
    }

    private static void print(PrintStream out, TextTable t) {
        if (t.isEmpty()) {
            out.println("  (none)");
        } else {
            t.print(out);
        }
    }

    private static String name(String group) {
        return group.isEmpty() ? "(none)" : group;
    }

    private static TextTable.Formatted percent(double share) {
        return new TextTable.Formatted(String.format(Locale.ROOT, "%.1f%%", share * 100));
    }

    private static TextTable.Formatted signedPercent(double share) {
        return new TextTable.Formatted(String.format(Locale.ROOT, "%+.1f%%", share * 100));
    }
}
