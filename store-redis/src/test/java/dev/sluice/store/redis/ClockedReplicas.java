package dev.sluice.store.redis;

import dev.sluice.time.FakeClock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Replicas' store connections on the machine's Redis, in a namespace of the test's own, all on one
 * manual clock: for tests that step a fleet's exchanges by hand. After each test every connection
 * (and whatever else was handed to {@link #own}) is closed in the reverse order of its opening and
 * the namespace is deleted. Register it as a field:
 * {@code @RegisterExtension final ClockedReplicas redis = new ClockedReplicas();}.
 */
final class ClockedReplicas implements AfterEachCallback {

    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock;
    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    ClockedReplicas() {
        this.clock = new FakeClock();
    }

    /** The clock starting at {@code start}. */
    ClockedReplicas(Instant start) {
        this.clock = new FakeClock(start);
    }

    /** The clock every replica's store and runtime reads. */
    FakeClock clock() {
        return clock;
    }

    /** A store connection for replica {@code id}, exact mode, on the shared clock. */
    RedisQuotaStore store(String id) {
        return own(RedisQuotaStore.connect(RedisTestSupport.URI,
                RedisTestSupport.config(ns).replicaId(id).testClock(clock).build()));
    }

    /** Closes {@code c} after the test, before what was opened before it. */
    <T extends AutoCloseable> T own(T c) {
        open.push(c);
        return c;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            while (!open.isEmpty()) {
                open.pop().close();
            }
        } finally {
            RedisTestSupport.deleteNamespace(ns);
        }
    }
}
