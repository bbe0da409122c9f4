package dev.sluice.ledger.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.ledger.Ledger;
import dev.sluice.ledger.LedgerException;
import dev.sluice.ledger.Traffic;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.ledger.query.Window;
import dev.sluice.runtime.config.LedgerSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The schema runner on each database: from nothing, from an older schema, twice, against a newer one. */
abstract class MigrationsContract {

    abstract LedgerSettings settings();

    Database db() {
        return Database.of(settings());
    }

    List<String> versions(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT version, description FROM schema_version ORDER BY version")) {
            while (r.next()) {
                out.add(r.getInt(1) + " " + r.getString(2));
            }
        }
        return out;
    }

    static final List<String> ALL = List.of("1 per-request and per-attempt rows", "2 hourly and daily rollups",
            "3 admin changes: audit and state", "4 request cost",
            "5 the whole decision of a request", "6 marks of batches written without rows",
            "7 no second index on trace ids", "8 attempt rows keyed by their start time",
            "9 request rows keyed by their arrival time", "10 a request's one attempt in its row");

    @Test
    void fromNothingEveryStepIsApplied() throws SQLException {
        Database db = db();
        try (Connection c = db.connect()) {
            assertThat(Migrations.version(c, db.dialect())).isZero();
            assertThat(Migrations.migrate(c, db.dialect(), db.schema())).isEqualTo(10);
            assertThat(versions(c)).isEqualTo(ALL);
            assertThat(Migrations.version(c, db.dialect())).isEqualTo(Migrations.latest());
        }
    }

    @Test
    void againNothingChanges() throws SQLException {
        Database db = db();
        try (Connection c = db.connect()) {
            Migrations.migrate(c, db.dialect(), db.schema());
            Migrations.migrate(c, db.dialect(), db.schema());
            assertThat(versions(c)).isEqualTo(ALL);
        }
        Ledger.open(settings()).close();
        try (Connection c = db.connect()) {
            assertThat(versions(c)).isEqualTo(ALL);
        }
    }

    @Test
    void fromAnOlderSchemaTheLaterStepsAreAppliedAndTheRowsKept() throws SQLException {
        Database db = db();
        try (Connection c = db.connect()) {
            assertThat(Migrations.migrate(c, db.dialect(), db.schema(), 1)).isEqualTo(1);
            assertThat(versions(c)).containsExactly(ALL.get(0));
            // A local refusal, so the row has a decider whose later columns are missing.
            try (var s = c.prepareStatement(EventRows.INSERT_REQUEST_V1)) {
                EventRows.bindRequestV1(s, Traffic.e4(), "old");
                s.executeUpdate();
            }
        }
        // A reader refuses the older schema rather than fail on a missing table.
        assertThatThrownBy(() -> LedgerQueries.open(settings())).isInstanceOf(LedgerException.class)
                .hasMessageContaining("has schema version 1; this Sluice reads version " + Migrations.latest()
                        + ": start the gateway once");
        Ledger ledger = Ledger.open(settings());
        ledger.onRequest(Traffic.e2());
        ledger.close();
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT trace_id, writer FROM requests ORDER BY trace_id")) {
            assertThat(versions(c)).isEqualTo(ALL);
            r.next();
            assertThat(r.getString(1)).isEqualTo(Traffic.e2().traceId());
            r.next();
            assertThat(r.getString(1)).isEqualTo(Traffic.e4().traceId());
            assertThat(r.getString(2)).isEqualTo("old");
        }
        // A row of the first schema still reads back, the later columns empty.
        var old = LedgerQueries.open(settings()).request(Traffic.e4().traceId(), arrival(Traffic.e4())).orElseThrow();
        assertThat(old.decider().orElseThrow().scope()).isEqualTo("tenant:globex");
        assertThat(old.decider().orElseThrow().budgetNanos()).isEmpty();
        // Rows written before the rollups existed are not in them; everything after is.
        assertThat(LedgerQueries.open(settings()).usage(Window.last(Duration.ofDays(1), Traffic.NOW),
                Grouping.TENANT).total().requests()).isEqualTo(1);
    }

    @Test
    void attemptRowsOfSchemaSevenAreKeptByStepEightAndReadBackWithTheirRequest() throws SQLException {
        Database db = db();
        var e5 = Traffic.e5(); // a 429, then an answer: two attempt rows
        try (Connection c = db.connect()) {
            assertThat(Migrations.migrate(c, db.dialect(), db.schema(), 7)).isEqualTo(7);
            try (var s = c.prepareStatement(EventRows.INSERT_REQUEST_V8)) {
                EventRows.bindRequestV8(s, e5, "old");
                s.executeUpdate();
            }
            // Step 7's attempts table has its key on the ids alone.
            try (var s = c.prepareStatement(EventRows.INSERT_ATTEMPT.replace(
                    "ON CONFLICT (started_at, trace_id, span_id, attempt)", "ON CONFLICT (trace_id, span_id, attempt)"))) {
                for (var a : e5.attemptEvents()) {
                    EventRows.bindAttempt(s, e5, a, new java.util.HashMap<>());
                    s.executeUpdate();
                }
            }
        }
        Ledger ledger = Ledger.open(settings());
        ledger.onRequest(e5); // the same request again: no second row of it or of its attempts
        ledger.close();
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM attempts)")) {
            assertThat(versions(c)).isEqualTo(ALL);
            r.next();
            assertThat(r.getInt(1)).isEqualTo(1);
            assertThat(r.getInt(2)).isEqualTo(2);
        }
        var back = LedgerQueries.open(settings()).request(e5.traceId(), arrival(e5)).orElseThrow();
        assertThat(back.attemptEvents()).isEqualTo(e5.attemptEvents());
    }

    @Test
    void requestRowsOfSchemaEightAreKeptByStepNineReadBackAndNotWrittenTwice() throws SQLException {
        Database db = db();
        var e5 = Traffic.e5(); // answered after a 429: two attempts
        var e4 = Traffic.e4(); // refused locally: a decider, no attempt
        try (Connection c = db.connect()) {
            assertThat(Migrations.migrate(c, db.dialect(), db.schema(), 8)).isEqualTo(8);
            // Schema 8's request rows are keyed (trace_id, span_id).
            try (var s = c.prepareStatement(EventRows.INSERT_REQUEST_V8)) {
                EventRows.bindRequestV8(s, e5, "old");
                s.executeUpdate();
                EventRows.bindRequestV8(s, e4, "old");
                s.executeUpdate();
            }
            try (var s = c.prepareStatement(EventRows.INSERT_ATTEMPT)) {
                for (var a : e5.attemptEvents()) {
                    EventRows.bindAttempt(s, e5, a, new java.util.HashMap<>());
                    s.executeUpdate();
                }
            }
        }
        Ledger ledger = Ledger.open(settings());
        ledger.onRequest(e5); // written before the step: the copied row's new key finds it, no second row
        ledger.onRequest(Traffic.e1()); // one attempt: in its request's row (step 10)
        ledger.close();
        assertThat(ledger.stats().recorded()).isEqualTo(1);
        assertThat(ledger.stats().duplicates()).isEqualTo(1);
        try (Connection c = db.connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT (SELECT COUNT(*) FROM requests), (SELECT COUNT(*) FROM attempts), "
                        + "(SELECT COUNT(*) FROM requests WHERE writer = 'old')")) {
            assertThat(versions(c)).isEqualTo(ALL);
            r.next();
            assertThat(r.getInt(1)).isEqualTo(3);
            assertThat(r.getInt(2)).isEqualTo(2);
            assertThat(r.getInt(3)).isEqualTo(2);
        }
        // The copied rows read back whole, every column where it was.
        LedgerQueries q = LedgerQueries.open(settings());
        assertThat(q.request(e5.traceId(), arrival(e5))).hasValue(e5);
        assertThat(q.request(e4.traceId(), arrival(e4))).hasValue(e4);
        assertThat(q.request(Traffic.e1().traceId(), arrival(Traffic.e1()))).hasValue(Traffic.e1());
    }

    static java.time.Instant arrival(dev.sluice.runtime.event.RequestEvent e) {
        return java.time.Instant.ofEpochMilli(e.receivedAtEpochMillis());
    }

    @Test
    void aNewerSchemaIsRefused() throws SQLException {
        Database db = db();
        try (Connection c = db.connect()) {
            Migrations.migrate(c, db.dialect(), db.schema());
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO schema_version (version, description, applied_at) "
                        + "VALUES (" + (Migrations.latest() + 1) + ", 'from the future', 0)");
            }
            assertThatThrownBy(() -> Migrations.migrate(c, db.dialect(), db.schema()))
                    .isInstanceOf(Migrations.SchemaTooNewException.class);
        }
        assertThatThrownBy(() -> Ledger.open(settings())).isInstanceOf(LedgerException.class)
                .hasMessageStartingWith("ledger: cannot open " + settings().describeLocation()
                        + ": ledger schema version " + (Migrations.latest() + 1) + " is newer than this Sluice knows ("
                        + Migrations.latest() + ")");
        assertThatThrownBy(() -> LedgerQueries.open(settings())).isInstanceOf(LedgerException.class)
                .hasMessageContaining("has schema version " + (Migrations.latest() + 1) + "; this Sluice reads version "
                        + Migrations.latest());
    }

    @Test
    void twoProcessesStartingAtOnceApplyEachStepOnce() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> {
                try (Connection c = db().connect()) {
                    go.await();
                    Migrations.migrate(c, db().dialect(), db().schema());
                } catch (Exception e) {
                    failure.set(e);
                }
            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failure.get()).isNull();
        try (Connection c = db().connect()) {
            assertThat(versions(c)).isEqualTo(ALL);
        }
    }
}
