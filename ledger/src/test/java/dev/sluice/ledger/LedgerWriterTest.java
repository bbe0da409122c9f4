package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ledger.db.LedgerStore;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.RequestEvent;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The buffer and the writer thread, against stand-ins for the database. */
class LedgerWriterTest {

    static final Clock CLOCK = Clock.fixed(Traffic.NOW, ZoneOffset.UTC);

    static LedgerSettings settings(int buffer, int batch) {
        return LedgerSettings.sqlite(Path.of("unused.db")).withBuffering(Duration.ofMillis(10), buffer, batch);
    }

    static RequestEvent event(long n) {
        return Events.request(String.format("%032x", n + 1), Traffic.T0).caller("o", "t", "t/x", "k")
                .span(Events.span(n)).build();
    }

    /** Writes what it is given, after {@code release} opens, once {@code entered} says it holds a batch. */
    static final class GatedWriter implements BatchWriter {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<RequestEvent> written = Collections.synchronizedList(new ArrayList<>());

        @Override
        public LedgerStore.WriteResult write(List<RequestEvent> batch) throws SQLException {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new SQLException(e);
            }
            written.addAll(batch);
            return new LedgerStore.WriteResult(batch.size(), 0, 0);
        }

        @Override
        public int retentionStep(long nowMillis) {
            return 0;
        }

        @Override
        public void close() {}
    }

    @Test
    void whatDoesNotFitIsCountedAndTheCallerNeverWaits() throws InterruptedException {
        GatedWriter out = new GatedWriter();
        JdbcLedger ledger = new JdbcLedger(settings(10, 10), out, CLOCK, Optional.empty(), "test");
        ledger.onRequest(event(0));
        assertThat(out.entered.await(10, TimeUnit.SECONDS)).as("the writer holds the first event").isTrue();
        // The writer is stuck in a write: ten more fit in the buffer, five do not. None of these calls waits.
        for (int i = 1; i <= 15; i++) {
            ledger.onRequest(event(i));
        }
        assertThat(ledger.stats().pending()).isEqualTo(10);
        assertThat(ledger.stats().unrecorded()).isEqualTo(5);
        out.release.countDown();
        ledger.close();
        assertThat(out.written).hasSize(11);
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::unrecorded, LedgerStats::pending)
                .containsExactly(11L, 5L, 0);
    }

    @Test
    void aFullBatchIsWrittenBeforeTheIntervalEnds() throws InterruptedException {
        GatedWriter out = new GatedWriter();
        out.release.countDown();
        LedgerSettings slow = LedgerSettings.sqlite(Path.of("unused.db")).withBuffering(Duration.ofSeconds(60), 100,
                4);
        JdbcLedger ledger = new JdbcLedger(slow, out, CLOCK, Optional.empty(), "test");
        for (int i = 0; i < 4; i++) {
            ledger.onRequest(event(i));
        }
        assertThat(out.entered.await(10, TimeUnit.SECONDS)).as("written long before the 60 s interval").isTrue();
        ledger.close();
        assertThat(out.written).hasSize(4);
    }

    @Test
    void aFailedBatchIsWrittenAgainUntilItGoes() {
        AtomicInteger tries = new AtomicInteger();
        List<RequestEvent> written = Collections.synchronizedList(new ArrayList<>());
        BatchWriter flaky = new BatchWriter() {
            @Override
            public LedgerStore.WriteResult write(List<RequestEvent> batch) throws SQLException {
                if (tries.incrementAndGet() <= 2) {
                    throw new SQLTransientConnectionException("connection reset");
                }
                written.addAll(batch);
                return new LedgerStore.WriteResult(batch.size(), 0, 0);
            }

            @Override
            public int retentionStep(long nowMillis) {
                return 0;
            }

            @Override
            public void close() {}
        };
        JdbcLedger ledger = new JdbcLedger(settings(100, 100), flaky, CLOCK, Optional.empty(), "test");
        for (int i = 0; i < 3; i++) {
            ledger.onRequest(event(i));
        }
        ledger.close();
        assertThat(written).hasSize(3);
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::failedWrites,
                LedgerStats::unrecorded).containsExactly(3L, 2L, 0L);
    }

    @Test
    void aDatabaseStillDownAtStopIsCountedNotWaitedForEver() {
        BatchWriter down = new BatchWriter() {
            @Override
            public LedgerStore.WriteResult write(List<RequestEvent> batch) throws SQLException {
                throw new SQLTransientConnectionException("connection refused");
            }

            @Override
            public int retentionStep(long nowMillis) {
                return 0;
            }

            @Override
            public void close() {}
        };
        JdbcLedger ledger = new JdbcLedger(settings(100, 2), down, CLOCK, Optional.empty(), "test",
                Duration.ofMillis(200));
        for (int i = 0; i < 5; i++) {
            ledger.onRequest(event(i));
        }
        ledger.close();
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::unrecorded, LedgerStats::pending)
                .containsExactly(0L, 5L, 0);
        assertThat(ledger.stats().failedWrites()).isPositive();
    }

    @Test
    void aBatchThatCannotBeWrittenForAnotherReasonIsCountedAndTheRestGoOn() throws InterruptedException {
        List<RequestEvent> written = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch tried = new CountDownLatch(1);
        BatchWriter broken = new BatchWriter() {
            @Override
            public LedgerStore.WriteResult write(List<RequestEvent> batch) {
                if (calls.incrementAndGet() == 1) {
                    tried.countDown();
                    throw new IllegalStateException("a bug, the same at every try");
                }
                written.addAll(batch);
                return new LedgerStore.WriteResult(batch.size(), 0, 0);
            }

            @Override
            public int retentionStep(long nowMillis) {
                return 0;
            }

            @Override
            public void close() {}
        };
        JdbcLedger ledger = new JdbcLedger(settings(100, 100), broken, CLOCK, Optional.empty(), "test");
        ledger.onRequest(event(0));
        assertThat(tried.await(10, TimeUnit.SECONDS)).as("the first batch was tried").isTrue();
        ledger.onRequest(event(1));
        ledger.onRequest(event(2));
        ledger.close();
        assertThat(written).hasSize(2);
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::unrecorded)
                .containsExactly(2L, 1L);
    }

    @Test
    void closeWaitsForABacklogThatOutlastsTheCloseTimeout() throws InterruptedException {
        GatedWriter out = new GatedWriter();
        JdbcLedger ledger = new JdbcLedger(settings(100, 10), out, CLOCK, Optional.empty(), "test",
                Duration.ofMillis(20));
        for (int i = 0; i < 35; i++) {
            ledger.onRequest(event(i));
        }
        assertThat(out.entered.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(ledger::close);
        closer.start();
        // Writes that succeed, however slowly, are waited for: the timeout is for a database that fails.
        long timedOut = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < timedOut) {
            Thread.onSpinWait();
        }
        assertThat(closer.isAlive()).as("close still waits, well past its 20 ms timeout").isTrue();
        out.release.countDown();
        closer.join();
        assertThat(out.written).hasSize(35);
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::unrecorded, LedgerStats::pending)
                .containsExactly(35L, 0L, 0);
    }

    @Test
    void anEventAfterCloseIsCounted() {
        GatedWriter out = new GatedWriter();
        out.release.countDown();
        JdbcLedger ledger = new JdbcLedger(settings(10, 10), out, CLOCK, Optional.empty(), "test");
        ledger.close();
        ledger.onRequest(event(0));
        ledger.onRequest(null);
        assertThat(ledger.stats().unrecorded()).isEqualTo(2);
    }

    @Test
    void offRecordsNothingAndAnswersNoQuery() {
        Ledger off = Ledger.open(LedgerSettings.off());
        off.onRequest(event(0));
        off.close();
        assertThat(off.stats()).isEqualTo(LedgerStats.NONE);
        assertThat(off.queries()).isEmpty();
        assertThat(off.sink()).isSameAs(dev.sluice.runtime.event.RequestEventSink.NONE);
    }
}
