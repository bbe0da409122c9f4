package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ledger.Ledger;
import dev.sluice.ledger.Traffic;
import dev.sluice.runtime.config.LedgerSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice usage} and {@code sluice report} on a ledger holding the contract test's traffic. */
class UsageCommandTest {

    static final Clock CLOCK = Clock.fixed(Traffic.NOW, ZoneOffset.UTC);

    @TempDir
    Path dir;
    Path config;

    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void recordTraffic() throws Exception {
        Path file = dir.resolve("ledger.db");
        try (Ledger ledger = Ledger.open(LedgerSettings.sqlite(file))) {
            Traffic.all().forEach(ledger::onRequest);
        }
        config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                ledger: { path: "%s" }
                deployments: { d: { kind: openai, base_url: "https://api.openai.com" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                """.formatted(file.toString().replace("\\", "/")));
    }

    int usage(String... args) {
        return UsageCommand.usage(Args.parse(args, "--since", "--by", "--config"), print(out), print(err), CLOCK);
    }

    int report(String... args) {
        return UsageCommand.report(Args.parse(args, "--since", "--config"), print(out), print(err), CLOCK);
    }

    static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void usageByTenantPrintsOneLinePerTenantAndTheTotal() {
        assertThat(usage("--config", config.toString())).isZero();
        assertThat(out()).isEqualTo("""
                usage by tenant, 2026-03-01 12:00 to 2026-03-02 13:00 UTC

                tenant  requests  answered  refused  provider 429  client gone  5xx  input  output  cache read  est. input  est. output  cost $  mean ms
                acme           4         3        0             0            1    0   1240     447         650        1350          950    0.00      550
                globex         3         1        1             1            0    0     90      60           0         800          350    0.00      300
                (none)         1         0        0             0            0    0      0       0           0           0            0    0.00        1
                total          8         4        1             1            1    0   1330     507         650        2150         1300    0.00      388
                """);
    }

    @Test
    void usageByKeySinceAWeek() {
        assertThat(usage("--config", config.toString(), "--by", "key", "--since", "7d")).isZero();
        assertThat(out()).startsWith("usage by key, 2026-02-23 12:00 to 2026-03-02 13:00 UTC")
                .contains("\na1             4 ").contains("\ng1             3 ");
    }

    @Test
    void reportPrintsEveryPartOfTheReview() {
        assertThat(report("--config", config.toString())).isZero();
        String o = out();
        assertThat(o).startsWith("review, 2026-02-23 12:00 to 2026-03-02 13:00 UTC\n");
        assertThat(o).contains("""
                estimation error by route (actual / estimate; answered attempts with the provider's usage)
                profile  deployment      dimension  samples    bias   p50   p95  all tokens
                claude   anthropic-main  input            1   +0.0%  1.00  1.00        1.00
                claude   anthropic-main  output           1  -16.7%  0.84  0.84        0.83
                fast     openai-east     input            4   -2.5%  0.92  1.09        0.96
                fast     openai-east     output           4   +5.0%  1.00  1.19        1.08
                """);
        assertThat(o).contains("""
                stranded quota (reserved beyond use, settled attempts, as each deployment's limit counts)
                deployment      dimension   attempts  reserved  used  stranded  share  overage
                anthropic-main  input_tpm          2      1400   900       500  35.7%        0
                anthropic-main  output_tpm         2       500   250       250  50.0%        0
                openai-east     input_tpm          5       600   580        30   5.0%       10
                openai-east     output_tpm         5       750   307       473  63.1%       30
                """);
        assertThat(o).contains("cache-read headroom").contains("anthropic-main    1500         600        600  40.0%");
        assertThat(o).contains("provider  anthropic  output_tpm        1  30000  30000  30000  30000");
        assertThat(o).contains("gateway   openai     input_tpm         1   1500   1500   1500   1500");
        assertThat(o).contains("top consumers per dimension").contains("requests              1  acme    a1");
        assertThat(o).contains("""
                borrowing by tenant (admitted beyond the guaranteed share of a deployment)
                tenant  requests  borrowed  share  input  borrowed input  output  borrowed output
                acme           5         1  20.0%   1340             900     497              250
                globex         3         0   0.0%     90               0      60                0
                """);
    }

    @Test
    void badOptionsAreNamed() {
        assertThatBad(() -> usage("--by", "team"), "--by: 'team' (expected: one of [tenant, key, profile, deployment, class])");
        assertThatBad(() -> usage("--since", "yesterday"), "--since: 'yesterday' (expected: a duration such as 24h, 7d, 90m)");
    }

    @Test
    void aLedgerThatIsNotThereIsAClearFailure() throws Exception {
        Path elsewhere = dir.resolve("elsewhere.yaml");
        Files.writeString(elsewhere, Files.readString(config).replace("ledger.db", "none.db"));
        assertThat(report("--config", elsewhere.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("sluice report: ledger: nothing recorded at ")
                .contains("none.db (no such file)");
        assertThat(dir.resolve("none.db")).doesNotExist();
    }

    @Test
    void aBadConfigurationIsNamed() throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, Files.readString(config).replace("ledger: {", "ledger: { retention: 1m,"));
        assertThat(usage("--config", bad.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ledger.retention: PT1M (expected: >= 1h)");
    }

    @Test
    void theCommandDispatchesUsageAndReport() {
        assertThat(SluiceCommand.run(new String[] {"usage", "--by", "nope"}, print(out), print(err))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("sluice usage: --by: 'nope'");
        assertThat(SluiceCommand.run(new String[] {"help"}, print(out), print(err))).isZero();
        assertThat(out()).contains("report [--since 7d]");
    }

    static void assertThatBad(Runnable r, String message) {
        try {
            r.run();
        } catch (Args.BadArguments e) {
            assertThat(e.getMessage()).isEqualTo(message);
            return;
        }
        throw new AssertionError("expected bad arguments: " + message);
    }
}
