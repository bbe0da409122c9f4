package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.ledger.db.Database;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.AfterAttempt;
import dev.sluice.runtime.request.Attempt;
import dev.sluice.runtime.request.AttemptOutcome;
import dev.sluice.runtime.request.ObservedUsage;
import dev.sluice.runtime.request.RequestLifecycle;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.request.RequestThread;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A request that fell back: the ledger keeps its chain of attempts, one row per deployment it ran on. */
class FallbackLedgerTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 600 } }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat, limits: { rpm: 600 } }
            profiles:
              chat: { model: gpt-4o-mini, deployments: [oa, az] }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    teams: { search: { keys: { main: { secret: "sk-test-fallback-ledger" } } } }
            """, "fallback-ledger.yaml", name -> null);

    @TempDir
    Path dir;

    @Test
    void theRequestRowNamesWhereItRanAndWhyAndEachAttemptItsDeployment() throws Exception {
        FakeClock clock = new FakeClock();
        LedgerSettings settings = LedgerSettings.sqlite(dir.resolve("ledger.db"));
        Ledger ledger = Ledger.open(settings);
        SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC))
                .clock(clock).events(ledger).build();
        RequestLifecycle life = runtime.arrive("4bf92f3577b34da6a3ce929d0e0e4736", RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan("4bf92f3577b34da6a3ce929d0e0e4736", "openai.chat",
                new Caller("acme-corp", "acme", "search", "main"), CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE,
                clock.nanos() + 30_000_000_000L, new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE),
                false));

        Attempt first = LifecycleLedgerTest.admitted(life);
        first.sending();
        AfterAttempt after = first.finish(new AttemptOutcome.Throttled(LifecycleLedgerTest.OPENAI.normalise(429,
                name -> name.equalsIgnoreCase("retry-after-ms") ? List.of("20000") : List.of(), "", 0)));
        assertThat(after).isInstanceOf(AfterAttempt.Reroute.class);
        Attempt second = LifecycleLedgerTest.admitted(life);
        second.sending();
        second.finish(new AttemptOutcome.Answered(LifecycleLedgerTest.ok(), new ObservedUsage(900, 50, 0, 0, true)));
        life.answered(200, Optional.empty(), OptionalLong.empty());
        ledger.close();

        try (Connection c = Database.of(settings).connect(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT deployment, fallback, attempts, status FROM requests")) {
                r.next();
                assertThat(List.of(r.getString(1), r.getString(2), r.getInt(3), r.getInt(4)))
                        .containsExactly("az", "provider_429", 2, 200);
            }
            try (ResultSet r = s.executeQuery("SELECT attempt, deployment, result FROM attempts ORDER BY attempt")) {
                r.next();
                assertThat(List.of(r.getInt(1), r.getString(2), r.getString(3))).containsExactly(1, "oa", "throttled");
                r.next();
                assertThat(List.of(r.getInt(1), r.getString(2), r.getString(3))).containsExactly(2, "az", "answered");
                assertThat(r.next()).isFalse();
            }
        }
    }
}
