package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.Window;
import dev.sluice.runtime.config.LedgerSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that records requests and is killed with SIGKILL (no shutdown hook, no close) keeps
 * every request handed to the ledger more than a flush interval before the kill.
 */
class KillTest {

    static final long FLUSH_MILLIS = 200;
    /**
     * What the bound allows beyond the flush interval on this machine: the writing of one batch and
     * the scheduling of the writer thread, on two cores shared by several builds.
     */
    static final long SLACK_MILLIS = 1_000;

    record Mark(long n, long atMillis) {}

    @Test
    void aKilledProcessLosesAtMostTheLastFlushInterval(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ledger.db");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                KillChild.class.getName(), file.toString(), Long.toString(FLUSH_MILLIS))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<Mark> marks = new CopyOnWriteArrayList<>();
        CountDownLatch enough = new CountDownLatch(1);
        Thread reader = new Thread(() -> read(child, marks, enough), "kill-test-reader");
        reader.start();
        long killedAt;
        try {
            // About two seconds of traffic, so that many batches were committed before the kill.
            assertThat(enough.await(60, TimeUnit.SECONDS)).as("the child recorded 4,000 requests").isTrue();
        } finally {
            killedAt = System.currentTimeMillis();
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(10_000);
        }

        long rows;
        long last;
        try (Connection c = Database.of(LedgerSettings.sqlite(file)).connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*), MAX(trace_id) FROM requests")) {
            r.next();
            rows = r.getLong(1);
            last = Long.parseLong(r.getString(2), 16);
        }
        // Batches commit in the order the requests came: what survived is every request up to one.
        assertThat(rows).isEqualTo(last + 1);
        for (Mark m : marks) {
            if (m.atMillis() <= killedAt - FLUSH_MILLIS - SLACK_MILLIS) {
                assertThat(m.n()).as("request %d, handed over %d ms before the kill", m.n(), killedAt - m.atMillis())
                        .isLessThan(rows);
            }
        }
        // The rollups were committed with the rows: they count the same requests.
        JdbcLedger again = JdbcLedger.open(LedgerSettings.sqlite(file), Clock.systemUTC(), "after");
        try {
            long rolledUp = again.queries().orElseThrow()
                    .usage(new Window(Instant.now().minus(Duration.ofDays(1)), Instant.now().plusSeconds(3600)),
                            Grouping.TENANT)
                    .total().requests();
            assertThat(rolledUp).isEqualTo(rows);
        } finally {
            again.close();
        }
    }

    private static void read(Process child, List<Mark> marks, CountDownLatch enough) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("ready")) {
                    continue;
                }
                String[] p = line.split(" ");
                Mark m = new Mark(Long.parseLong(p[0]), Long.parseLong(p[1]));
                marks.add(m);
                if (m.n() >= 4_000) {
                    enough.countDown();
                }
            }
        } catch (IOException | RuntimeException e) {
            // the child was killed mid-line
        }
    }
}
