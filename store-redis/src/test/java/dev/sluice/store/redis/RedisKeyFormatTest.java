package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.time.FakeClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The keys and values REDIS.md describes, read back raw from Redis after a reservation on a
 * bucket with daily and monthly caps: if the layout changes, this test and the document change
 * together.
 */
class RedisKeyFormatTest {

    private final String ns = RedisTestSupport.namespace();
    private final FakeClock clock = new FakeClock();

    @AfterEach
    void cleanUp() {
        RedisTestSupport.deleteNamespace(ns);
    }

    @Test
    void aBucketWithMoneyCapsAndItsLeaseAreStoredAsDocumented() {
        BucketPlan tenant = BucketPlan.of(Scope.of(ScopeLevel.TENANT, "acme"), Limits.of(Limit.of(Dimension.REQUESTS, 60),
                Limit.of(Dimension.DAILY_COST, 5_000_000), Limit.of(Dimension.MONTHLY_COST, 100_000_000)));
        long[] amounts = new long[Dimension.COUNT];
        amounts[Dimension.REQUESTS.ordinal()] = 1;
        amounts[Dimension.DAILY_COST.ordinal()] = 4_500;
        amounts[Dimension.MONTHLY_COST.ordinal()] = 4_500;
        RedisClient client = RedisClient.create(RedisTestSupport.URI);
        RedisQuotaStore store = RedisQuotaStore.connect(RedisTestSupport.URI, RedisTestSupport.config(ns).testClock(clock)
                .build());
        try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
            assertThat(store.reserve(new BucketPlan[] {tenant}, amounts, 60_000_000_000L))
                    .isInstanceOf(ReserveOutcome.Granted.class);

            String bucketKey = ns + ":{" + ns + "}:b:tenant:acme";
            ByteBuffer b = le(raw.sync().get(bucketKey.getBytes(StandardCharsets.UTF_8)));
            assertThat(b.get()).as("format").isEqualTo((byte) 2);
            int n = b.get();
            assertThat(n).as("one record per limited dimension").isEqualTo(3);
            b.getDouble(); // last refill
            b.getDouble(); // day number
            double[] levels = new double[n];
            for (int i = 0; i < n; i++) {
                levels[i] = b.getDouble();
                b.position(b.position() + 8 * 8); // the record's other eight doubles
            }
            byte[] ordinals = new byte[n];
            b.get(ordinals);
            assertThat(b.remaining()).isZero();
            assertThat(ordinals).containsExactly(Dimension.REQUESTS.ordinal(), Dimension.DAILY_COST.ordinal(),
                    Dimension.MONTHLY_COST.ordinal());
            // Calendar caps hold what is used (today, this month); a rate holds what is left.
            assertThat(levels[1]).isEqualTo(4_500);
            assertThat(levels[2]).isEqualTo(4_500);

            List<byte[]> members = raw.sync().zrange((ns + ":{" + ns + "}:leases").getBytes(StandardCharsets.UTF_8), 0, -1);
            assertThat(members).hasSize(1);
            ByteBuffer m = le(members.get(0));
            assertThat(Dimension.COUNT).as("ten dimensions, the lease's first ten doubles").isEqualTo(10);
            for (Dimension d : Dimension.values()) {
                assertThat(m.getDouble()).as(d.limiterName()).isEqualTo(amounts[d.ordinal()]);
            }
            byte[] id = new byte[m.getShort()];
            m.get(id);
            assertThat(new String(id, StandardCharsets.US_ASCII)).contains("-");
            assertThat(m.get()).as("bucket count").isEqualTo((byte) 1);
            int mask = m.getShort() & 0xFFFF;
            assertThat(mask).isEqualTo(1 << Dimension.REQUESTS.ordinal() | 1 << Dimension.DAILY_COST.ordinal()
                    | 1 << Dimension.MONTHLY_COST.ordinal());
            byte[] key = new byte[m.getShort()];
            m.get(key);
            assertThat(new String(key, StandardCharsets.UTF_8)).isEqualTo(bucketKey);
            assertThat(m.remaining()).isZero();
        } finally {
            store.close();
            client.shutdown();
        }
    }

    @Test
    void aNineAmountLeaseOfABuildBeforeMonthlyCostExpiresOnTheBucketsItNames() {
        BucketPlan tenant = BucketPlan.of(Scope.of(ScopeLevel.TENANT, "acme"), Limits.of(Limit.of(Dimension.REQUESTS, 60),
                Limit.of(Dimension.DAILY_COST, 5_000_000)));
        long[] amounts = new long[Dimension.COUNT];
        amounts[Dimension.REQUESTS.ordinal()] = 1;
        amounts[Dimension.DAILY_COST.ordinal()] = 4_500;
        RedisClient client = RedisClient.create(RedisTestSupport.URI);
        RedisQuotaStore store = RedisQuotaStore.connect(RedisTestSupport.URI, RedisTestSupport.config(ns).testClock(clock)
                .build());
        try (StatefulRedisConnection<byte[], byte[]> raw = client.connect(ByteArrayCodec.INSTANCE)) {
            assertThat(store.reserve(new BucketPlan[] {tenant}, amounts, 60_000_000_000L))
                    .isInstanceOf(ReserveOutcome.Granted.class);
            // The lease as a build of nine dimensions wrote it: nine doubles, then the same fields.
            byte[] set = (ns + ":{" + ns + "}:leases").getBytes(StandardCharsets.UTF_8);
            var written = raw.sync().zrangeWithScores(set, 0, -1).get(0);
            byte[] id = "old-build-1".getBytes(StandardCharsets.US_ASCII);
            byte[] key = (ns + ":{" + ns + "}:b:tenant:acme").getBytes(StandardCharsets.UTF_8);
            ByteBuffer nine = ByteBuffer.allocate(9 * 8 + 2 + id.length + 1 + 4 + key.length).order(ByteOrder.LITTLE_ENDIAN);
            for (int d = 0; d < 9; d++) {
                nine.putDouble(amounts[d]);
            }
            nine.putShort((short) id.length).put(id).put((byte) 1)
                    .putShort((short) (1 << Dimension.REQUESTS.ordinal() | 1 << Dimension.DAILY_COST.ordinal()))
                    .putShort((short) key.length).put(key);
            raw.sync().zrem(set, written.getValue());
            raw.sync().zadd(set, written.getScore(), nine.array());

            clock.advanceMillis(61_000);
            assertThat(store.expireLeases()).isEqualTo(1);

            var requests = store.state(tenant).of(Dimension.REQUESTS).orElseThrow();
            var cost = store.state(tenant).of(Dimension.DAILY_COST).orElseThrow();
            assertThat(requests.open()).isZero();
            assertThat(requests.expired()).isEqualTo(1);
            assertThat(cost.open()).isZero();
            assertThat(cost.expired()).isEqualTo(4_500);
        } finally {
            store.close();
            client.shutdown();
        }
    }

    private static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
