package dev.sluice.store.redis;

import dev.sluice.runtime.control.ControlJournal;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Replicas on one Redis, for end-to-end tests of a fleet: a redis-server of the test's own
 * ({@link OwnRedisServer}, so nothing is left in the machine's Redis and no namespace needs
 * cleaning), the replicas' store connections and change relays, and whatever else the test hands
 * to {@link #own}, all closed after each test in the reverse order of their start, the server last.
 * Register it as a field: {@code @RegisterExtension final ReplicasOnRedis redis = new ReplicasOnRedis();}.
 */
public final class ReplicasOnRedis implements BeforeEachCallback, AfterEachCallback {

    private final OwnRedisServer server = new OwnRedisServer();
    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    /** A replica's change relay and a signal per import it made. */
    public record Relay(RedisChangeRelay relay, LinkedBlockingQueue<Boolean> imported) {

        /**
         * Runs {@code then} after each import (as {@code sluice serve} syncs its control plane),
         * then signals {@link #awaitImport}.
         */
        public void onImport(Runnable then) {
            relay.whenImported(() -> {
                then.run();
                imported.add(true);
            });
        }

        /** Waits for imports until {@code condition} holds, at most five seconds. */
        public void awaitImport(BooleanSupplier condition) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!condition.getAsBoolean()) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("not imported within 5 s");
                }
                imported.poll(left, TimeUnit.NANOSECONDS);
            }
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        server.start();
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception first = null;
        while (!open.isEmpty()) {
            try {
                open.pop().close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        server.close();
        if (first != null) {
            throw first;
        }
    }

    /** The server's URI, {@code redis://127.0.0.1:PORT}. */
    public String uri() {
        return server.uri();
    }

    /** The server itself, to kill, pause or resume. */
    public OwnRedisServer server() {
        return server;
    }

    /** Closes {@code c} after the test, before what was started earlier; returns it. */
    public <T extends AutoCloseable> T own(T c) {
        open.push(c);
        return c;
    }

    /** A store connection of a replica, closed after the test. */
    public RedisQuotaStore store() {
        return own(RedisQuotaStore.connect(uri(), RedisStoreConfig.builder().build()));
    }

    /** A change relay over {@code store} importing into {@code journal} every {@code every}, closed after the test. */
    public Relay relay(RedisQuotaStore store, ControlJournal journal, Duration every) {
        Relay r = new Relay(own(RedisChangeRelay.start(store, journal, every)), new LinkedBlockingQueue<>());
        r.onImport(() -> {});
        return r;
    }

    /** Polls {@code done} every 20 ms; fails once {@code within} has passed without it. */
    public static void awaitTrue(Duration within, BooleanSupplier done) {
        long until = System.nanoTime() + within.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + within);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
