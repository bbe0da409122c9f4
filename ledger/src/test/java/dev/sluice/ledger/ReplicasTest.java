package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.Usage;
import dev.sluice.ledger.query.UsageRow;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several replicas writing one PostgreSQL ledger at once: nothing lost, nothing counted twice. */
class ReplicasTest {

    @RegisterExtension
    final PostgresSchema pg = new PostgresSchema();

    static final int REQUESTS = 4_000;

    static RequestEvent event(int n) {
        String tenant = "t" + (n % 7);
        return Events.request(String.format("%032x", n + 1), Traffic.T0.plusMillis(n * 10L))
                .caller("o", tenant, tenant + "/team", tenant + "-k" + (n % 3)).span(Events.span(n))
                .trafficClass(n % 5 == 0 ? "batch" : "interactive").estimate(100 + n % 10, 50, 0)
                .usage(90 + n % 13, 40 + n % 17, n % 3).latencyMillis(10)
                .attempt(AttemptResult.ANSWERED).estimate(100 + n % 10, 50, 0).usage(90 + n % 13, 40 + n % 17, n % 3)
                .done().build();
    }

    @Test
    void twoWritersWithOverlappingRequestsCountEachRequestOnce() throws Exception {
        List<RequestEvent> all = new ArrayList<>();
        for (int n = 0; n < REQUESTS; n++) {
            all.add(event(n));
        }
        // Replica a gets requests 0..2999 in order, replica b 1000..3999 backwards: 2,000 come to both,
        // in opposite orders, in many small batches, so their transactions meet on the same keys.
        LedgerSettings settings = pg.settings().withBuffering(Duration.ofMillis(10), 10_000, 50);
        JdbcLedger a = JdbcLedger.open(settings, LedgerContract.CLOCK, "a");
        JdbcLedger b = JdbcLedger.open(settings, LedgerContract.CLOCK, "b");
        CountDownLatch start = new CountDownLatch(1);
        Thread ta = new Thread(() -> {
            await(start);
            for (int n = 0; n < 3_000; n++) {
                a.onRequest(all.get(n));
            }
        });
        Thread tb = new Thread(() -> {
            await(start);
            for (int n = REQUESTS - 1; n >= 1_000; n--) {
                b.onRequest(all.get(n));
            }
        });
        ta.start();
        tb.start();
        start.countDown();
        ta.join();
        tb.join();
        a.close();
        b.close();

        assertThat(a.stats().recorded() + b.stats().recorded()).isEqualTo(REQUESTS);
        assertThat(a.stats().duplicates() + b.stats().duplicates()).isEqualTo(2_000);
        assertThat(a.stats().unrecorded() + b.stats().unrecorded()).isZero();
        // No transaction failed: no deadlock, no serialization failure was retried.
        assertThat(a.stats().failedWrites() + b.stats().failedWrites()).isZero();

        try (Connection c = pg.connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM attempts), "
                        + "(SELECT COUNT(*) FROM requests WHERE attempt_started_at IS NOT NULL)")) {
            r.next();
            assertThat(r.getLong(1)).isEqualTo(REQUESTS);
            // Each made one attempt: kept in its request's row.
            assertThat(r.getLong(2)).isZero();
            assertThat(r.getLong(3)).isEqualTo(REQUESTS);
        }
        Usage u = a.queries().orElseThrow().usage(LedgerContract.WEEK, Grouping.TENANT);
        long in = 0;
        long out = 0;
        long cache = 0;
        for (RequestEvent e : all) {
            in += e.usage().input();
            out += e.usage().output();
            cache += e.usage().cacheRead();
        }
        UsageRow t = u.total();
        assertThat(t.requests()).isEqualTo(REQUESTS);
        assertThat(t.inputTokens()).isEqualTo(in);
        assertThat(t.outputTokens()).isEqualTo(out);
        assertThat(t.cacheReadTokens()).isEqualTo(cache);
        assertThat(u.rows()).hasSize(7);
        assertThat(u.rows()).extracting(UsageRow::requests).containsOnly(572L, 571L);
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
