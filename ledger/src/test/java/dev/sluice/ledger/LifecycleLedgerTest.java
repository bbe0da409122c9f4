package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.Review;
import dev.sluice.ledger.query.UsageRow;
import dev.sluice.ledger.query.Window;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.Admission;
import dev.sluice.runtime.request.Attempt;
import dev.sluice.runtime.request.AttemptOutcome;
import dev.sluice.runtime.request.ObservedUsage;
import dev.sluice.runtime.request.RequestLifecycle;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.request.RequestThread;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lifecycle's own events, from arrival to answer, into the ledger and out of its queries. */
class LifecycleLedgerTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1", scope: { project: prod }, limits: { rpm: 600 } }
            profiles:
              chat: { deployment: oa, model: gpt-4o-mini, cache_read_counts_against_input_limit: false }
            orgs:
              acme-corp:
                tenants:
                  acme:
                    teams:
                      search:
                        keys:
                          main: { secret: "sk-test-ledger" }
            """, "ledger.yaml", name -> null);
    static final SignalNormaliser OPENAI = new SignalNormaliser(ProviderKind.OPENAI);

    @TempDir
    Path dir;

    final FakeClock clock = new FakeClock();

    static ProviderSignal ok() {
        return OPENAI.normalise(200, name -> List.of(), "", 0);
    }

    RequestLifecycle arrive(SluiceRuntime runtime, String traceId) {
        RequestLifecycle life = runtime.arrive(traceId, RequestThread.inPlace());
        life.operation("openai.chat");
        life.planned(new RequestPlan(traceId, "openai.chat", new Caller("acme-corp", "acme", "search", "main"),
                CONFIG.profiles().get("chat"), TrafficClass.INTERACTIVE, clock.nanos() + 30_000_000_000L,
                new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false));
        return life;
    }

    static Attempt admitted(RequestLifecycle life) {
        Attempt[] out = new Attempt[1];
        life.admit(a -> out[0] = ((Admission.Admitted) a).attempt());
        return out[0];
    }

    @Test
    void anAnsweredRequestAndAStreamTheClientLeftAreBothRecorded() throws Exception {
        LedgerSettings settings = LedgerSettings.sqlite(dir.resolve("ledger.db"));
        Ledger ledger = Ledger.open(settings);
        SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC))
                .clock(clock).events(ledger).build();

        RequestLifecycle answered = arrive(runtime, "4bf92f3577b34da6a3ce929d0e0e4736");
        Attempt a = admitted(answered);
        a.sending();
        clock.advanceMillis(40);
        a.responseHead();
        a.firstContent();
        a.finish(new AttemptOutcome.Answered(ok(), new ObservedUsage(600, 150, 300, 0, true)));
        answered.answered(200, Optional.empty(), OptionalLong.empty());

        // The same trace again (a traced agent's second call), a stream whose client left after 70 tokens.
        RequestLifecycle left = arrive(runtime, "4bf92f3577b34da6a3ce929d0e0e4736");
        Attempt b = admitted(left);
        b.sending();
        b.streamHead(ok());
        left.responseStarted(200);
        b.finish(new AttemptOutcome.ClientGone(true, Optional.of(new ObservedUsage(900, 70, 0, 0, false))));
        left.clientGone();
        ledger.close();

        assertThat(ledger.stats().recorded()).isEqualTo(2);
        assertThat(ledger.stats().duplicates()).isZero();
        try (Connection c = Database.of(settings).connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT r.tenant, r.api_key, r.status, r.input_tokens, r.output_tokens, "
                        + "r.cache_read_tokens, r.provider_scope, r.attempt_result, r.attempt_cache_reads_counted "
                        + "FROM requests r ORDER BY r.output_tokens DESC")) { // one attempt each: in the request's row
            r.next();
            assertThat(List.of(r.getString(1), r.getString(2), r.getInt(3), r.getLong(4), r.getLong(5), r.getLong(6),
                    r.getString(7), r.getString(8), r.getInt(9)))
                    .containsExactly("acme", "main", 200, 600L, 150L, 300L, "{\"project\":\"prod\"}", "answered", 0);
            r.next();
            assertThat(List.of(r.getLong(4), r.getLong(5), r.getString(8))).containsExactly(900L, 70L, "client_gone");
            assertThat(r.next()).isFalse();
        }

        Clock wall = Clock.fixed(Instant.ofEpochMilli(clock.epochMillis()), ZoneOffset.UTC);
        JdbcLedger reader = JdbcLedger.open(settings, wall, "reader");
        try {
            Window day = Window.last(Duration.ofDays(1), wall.instant().plusSeconds(60));
            UsageRow acme = reader.queries().orElseThrow().usage(day, Grouping.TENANT).rows().get(0);
            assertThat(acme.requests()).isEqualTo(2);
            assertThat(acme.outputTokens()).isEqualTo(220);
            Review review = reader.queries().orElseThrow().review(day);
            assertThat(review.cacheHeadroom()).containsExactly(new Review.CacheHeadroom("oa", 1_800, 300, 300));
        } finally {
            reader.close();
        }
    }
}
