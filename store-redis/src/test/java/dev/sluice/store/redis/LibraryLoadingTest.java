package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.time.FakeClock;
import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.ZoneOffset;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server-side library is loaded as Redis functions where the server has them, as scripts
 * otherwise, and loaded again when the server lost it. On a redis-server of the test's own, so
 * flushing functions and scripts touches no one else.
 */
class LibraryLoadingTest {

    private static final long SECOND = 1_000_000_000L;
    private static final BucketPlan DEP = BucketPlan.of(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt"),
            Limits.of(Limit.of(Dimension.TOTAL_TOKENS, 6_000, 6_000), Limit.of(Dimension.CONCURRENT_REQUESTS, 2)));
    private static final BucketPlan[] PATH = {DEP};

    private final OwnRedisServer server = new OwnRedisServer();
    private final FakeClock clock = new FakeClock();

    @BeforeEach
    void start() throws Exception {
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private RedisQuotaStore store(boolean functions) {
        return RedisQuotaStore.connect(RedisURI.create(server.uri()),
                RedisTestSupport.config("lib").testClock(clock).build(), functions);
    }

    private void admin(Consumer<RedisCommands<String, String>> action) {
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            action.accept(c.sync());
        } finally {
            client.shutdown();
        }
    }

    private static long[] tokens(long n) {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.TOTAL_TOKENS.ordinal()] = n;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
        return a;
    }

    @Test
    void functionsDeletedFromTheServerAreLoadedAgain() {
        try (RedisQuotaStore s = store(true)) {
            assertThat(s.link().usesFunctions()).isTrue();
            assertThat(s.reserve(PATH, tokens(100), SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
            admin(c -> c.functionFlush(FlushMode.SYNC));
            assertThat(s.reserve(PATH, tokens(100), SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
            assertThat(s.state(DEP).of(Dimension.CONCURRENT_REQUESTS).orElseThrow().open()).isEqualTo(2);
        }
    }

    @Test
    void scriptsGiveTheSameAnswersAsTheInMemoryStoreAndAreLoadedAgainAfterAFlush() {
        InMemoryQuotaStore mem = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
        try (RedisQuotaStore s = store(false)) {
            assertThat(s.link().usesFunctions()).isFalse();
            for (int i = 0; i < 3; i++) {
                ReserveOutcome m = mem.reserve(PATH, tokens(2_500), 10 * SECOND);
                ReserveOutcome r = s.reserve(PATH, tokens(2_500), 10 * SECOND);
                assertThat(r.getClass()).isEqualTo(m.getClass());
                if (m instanceof ReserveOutcome.Short sh) {
                    assertThat(r).isEqualTo(sh);
                } else {
                    clock.advanceNanos(SECOND);
                    assertThat(s.settle(((ReserveOutcome.Granted) r).lease(), tokens(1_000)))
                            .isEqualTo(mem.settle(((ReserveOutcome.Granted) m).lease(), tokens(1_000)));
                }
            }
            admin(c -> c.scriptFlush());
            assertThat(s.reserve(PATH, tokens(10), SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
            assertThat(mem.reserve(PATH, tokens(10), SECOND)).isInstanceOf(ReserveOutcome.Granted.class);
            assertThat(s.state(DEP)).isEqualTo(mem.state(DEP));
        }
    }
}
