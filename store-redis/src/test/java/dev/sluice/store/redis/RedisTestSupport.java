package dev.sluice.store.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The machine's Redis on 127.0.0.1:6379 (CI starts it), a namespace per test so runs never see
 * each other's keys, and removal of a namespace's keys afterwards.
 */
final class RedisTestSupport {

    static final String URI = "redis://127.0.0.1:6379";
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final AtomicInteger NEXT = new AtomicInteger();

    private RedisTestSupport() {}

    /** A namespace no other test or run uses. */
    static String namespace() {
        return "sluicetest:" + RUN + ":" + NEXT.incrementAndGet();
    }

    static RedisStoreConfig.Builder config(String namespace) {
        return RedisStoreConfig.builder().namespace(namespace).replicaId("r" + NEXT.incrementAndGet());
    }

    /**
     * A Redis store in a new namespace on the contract's manual clock; the namespace is added to
     * {@code namespaces} for the test to delete afterwards.
     */
    static RedisQuotaStore contractStore(dev.sluice.time.FakeClock clock, java.time.ZoneId zone,
            java.util.List<String> namespaces) {
        String ns = namespace();
        namespaces.add(ns);
        return RedisQuotaStore.connect(URI, config(ns).testClock(clock).dailyResetZone(zone).build());
    }

    /** Deletes every key of {@code namespace}; returns how many there were. */
    static int deleteNamespace(String namespace) {
        return deleteMatching(URI, namespace + ":*");
    }

    static int deleteMatching(String uri, String pattern) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> cmd = c.sync();
            int n = 0;
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = cmd.scan(cursor, ScanArgs.Builder.matches(pattern).limit(500));
                if (!page.getKeys().isEmpty()) {
                    n += (int) (long) cmd.unlink(page.getKeys().toArray(String[]::new));
                }
                cursor = page;
            } while (!cursor.isFinished());
            return n;
        } finally {
            client.shutdown();
        }
    }
}
