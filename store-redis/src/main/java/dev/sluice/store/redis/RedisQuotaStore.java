package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.Headroom;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Quota state in Redis, shared by every gateway replica of a namespace. Behaves like
 * {@link dev.sluice.store.InMemoryQuotaStore} (same refill arithmetic, shortfall choice and
 * conservation counters) with the state kept server-side: a reservation over a whole path is one
 * {@code EVALSHA}, a settlement another, and time is the server's ({@code TIME} in the script).
 *
 * <p>Thread-safe; every thread shares one connection, on which Lettuce pipelines their commands.
 * Calls block for at most the command timeout; when Redis cannot answer, {@link #reserve} and the
 * read and control calls throw {@link StoreUnavailableException}. Settlements and releases never
 * throw for that: they are queued and replayed when Redis answers again, and since ending a lease
 * is idempotent a replay never counts twice. A reservation whose answer was lost is released the
 * same way, so capacity the script may have taken comes back.
 */
public final class RedisQuotaStore implements QuotaStore {

    /** Every call may reach Redis. */
    @Override
    public boolean waitsOnNetwork() {
        return true;
    }

    /** Version of the key layout and value formats; stored in the namespace's meta key. */
    public static final int FORMAT_VERSION = 2;

    private static final int MAX_PENDING = 100_000;
    private static final int EXPIRE_BATCH = 256;
    private static final byte[] SERVER_TIME = {};
    /** Settling with no usage given: a release. */
    private static final byte[] RELEASE = {};

    private final RedisStoreConfig config;
    private final RedisLink link;
    private final KeyLayout keys;
    private final NanoClock wall;
    private final ConcurrentHashMap<BucketPlan[], PathLayout> paths = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, PlanArgs> singles = new ConcurrentHashMap<>();
    private final Set<String> knownGroups = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextLease = new AtomicLong();
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final int reclaimOnReserve;
    private final Batcher batcher;
    private volatile Days days;

    /** A settlement or release waiting for Redis to answer again. {@code actual} (packed) null: release. */
    private record Pending(RedisLease lease, byte[] actual) {}

    /** A single bucket's key and packed plan, for calls on one bucket. */
    private record PlanArgs(BucketPlan plan, byte[][] key, byte[] packed) {}

    private record Days(DayTable table, byte[] packed) {}

    private RedisQuotaStore(RedisStoreConfig config, RedisLink link) {
        this.config = config;
        this.link = link;
        this.keys = new KeyLayout(config.namespace(), config.grouping());
        this.wall = config.testClock().orElse(NanoClock.system());
        this.reclaimOnReserve = config.reclaimOnReserve();
        this.batcher = new Batcher(link, this::calendar, config.commandTimeout());
    }

    /**
     * Connects to Redis at {@code uri} ({@code redis://host:port/db}) with a connection of its own,
     * loads the server-side library (as Redis functions where the server has them, else as
     * scripts) and checks the namespace's format version.
     *
     * @throws StoreUnavailableException if Redis cannot be reached
     * @throws IllegalStateException if the namespace holds state of another format version
     */
    public static RedisQuotaStore connect(String uri, RedisStoreConfig config) {
        return connect(RedisURI.create(uri), config);
    }

    /** As {@link #connect(String, RedisStoreConfig)}. */
    public static RedisQuotaStore connect(RedisURI uri, RedisStoreConfig config) {
        return connect(uri, config, true);
    }

    /** As {@link #connect(RedisURI, RedisStoreConfig)}; {@code functions} false always uses scripts. */
    static RedisQuotaStore connect(RedisURI uri, RedisStoreConfig config, boolean functions) {
        Objects.requireNonNull(config, "config");
        RedisLink link = RedisLink.open(uri, config.commandTimeout(), config.reconnectDelay(), functions);
        RedisQuotaStore store = new RedisQuotaStore(config, link);
        try {
            store.checkFormat();
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
        return store;
    }

    private void checkFormat() {
        var c = link.commands();
        link.await(c.hsetnx(keys.meta(), "format", Integer.toString(FORMAT_VERSION)));
        String found = link.await(c.hget(keys.meta(), "format"));
        if (!Integer.toString(FORMAT_VERSION).equals(found)) {
            throw new IllegalStateException("namespace '" + config.namespace() + "': state format " + found
                    + " (expected: " + FORMAT_VERSION + ")");
        }
    }

    public RedisStoreConfig config() {
        return config;
    }

    /** Heartbeats, ramp stages and other state that replicas share beside the buckets. */
    public SharedControlState sharedControl() {
        return new SharedControlState(this);
    }

    /** Each tenant's refunds of invalid requests, counted for every replica on this namespace. */
    public RedisInvalidRefunds invalidRefunds() {
        return new RedisInvalidRefunds(this);
    }

    /** Whether the connection is up now (it reconnects by itself after Redis comes back). */
    public boolean isConnected() {
        return link.connected();
    }

    /** Settlements, releases and lost reservations waiting for Redis to answer again. */
    public int pendingReplays() {
        return pendingCount.get();
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos) {
        return reserve(path, amounts, leaseTtlNanos, Headroom.NONE);
    }

    @Override
    public ReserveOutcome reserve(BucketPlan[] path, long[] amounts, long leaseTtlNanos, Headroom headroom) {
        PathLayout layout = layout(path);
        RedisLease lease = new RedisLease(nextLeaseId(), layout, amounts);
        int granted = 0;
        try {
            for (int gi = 0; gi < layout.groups.length; gi++) {
                PathLayout.Group g = layout.groups[gi];
                registerGroup(g.tag());
                List<?> r = (List<?>) batcher.call(Batcher.Op.reserve(g, clock(), lease.members[gi], leaseTtlNanos,
                        reclaimOnReserve, headroom));
                if (((Long) r.get(0)) == 0L) {
                    if (granted > 0) {
                        // An earlier group of a path that spans slots said yes: give that back.
                        endGroups(lease, granted, null);
                    }
                    return shortfall(path, r);
                }
                granted++;
            }
        } catch (StoreUnavailableException e) {
            // The script may have run before the answer was lost: release whatever it may hold.
            enqueue(new Pending(lease, null));
            throw e;
        }
        afterSuccess();
        return new ReserveOutcome.Granted(lease);
    }

    static ReserveOutcome.Short shortfall(BucketPlan[] path, List<?> r) {
        int index = ((Long) r.get(1)).intValue();
        Scope scope = path[index].scope();
        return new ReserveOutcome.Short(index, scope, Dimension.byOrdinal(((Long) r.get(2)).intValue()),
                (Long) r.get(3), ((Long) r.get(4)) == 1L, ((Long) r.get(5)) == 1L, (Long) r.get(6), (Long) r.get(7),
                (Long) r.get(8), r.size() > 9 ? (Long) r.get(9) : 0L);
    }

    @Override
    public SettleOutcome settle(LeaseHandle handle, long[] actual) {
        return end(lease(handle), Packing.amounts(actual));
    }

    @Override
    public SettleOutcome release(LeaseHandle handle) {
        return end(lease(handle), null);
    }

    /** Ends a lease; {@code actual} is packed usage, or null to release. */
    private SettleOutcome end(RedisLease lease, byte[] actual) {
        SettleOutcome done = actual == null ? SettleOutcome.RELEASED : SettleOutcome.SETTLED;
        try {
            boolean ended = endGroups(lease, lease.path.groups.length, actual);
            afterSuccess();
            return ended ? done : SettleOutcome.ALREADY_CLOSED;
        } catch (StoreUnavailableException e) {
            enqueue(new Pending(lease, actual));
            return done;
        }
    }

    /** Ends the lease in its first {@code count} groups; true if any part was still open. */
    private boolean endGroups(RedisLease lease, int count, byte[] actual) {
        boolean any = false;
        for (int gi = 0; gi < count; gi++) {
            PathLayout.Group g = lease.path.groups[gi];
            Object r = batcher.call(Batcher.Op.settle(g, clock(), lease.members[gi], actual == null ? RELEASE : actual));
            any |= ((Long) r) == 1L;
        }
        return any;
    }

    @Override
    public int expireLeases() {
        drainPending(Integer.MAX_VALUE);
        int ended = 0;
        for (String tag : groups()) {
            for (String set : new String[] {keys.leaseSet(tag), keys.leasePartSet(tag)}) {
                byte[][] k = {Packing.key(set)};
                long n;
                do {
                    n = link.callLong(Library.Fn.EXPIRE, k, clock(), (long) EXPIRE_BATCH);
                    if (set.equals(keys.leaseSet(tag))) {
                        ended += (int) n;
                    }
                } while (n == EXPIRE_BATCH);
            }
        }
        return ended;
    }

    @Override
    public int openLeases() {
        long open = 0;
        for (String tag : groups()) {
            open += link.await(link.commands().zcard(keys.leaseSet(tag)));
        }
        return (int) Math.min(Integer.MAX_VALUE, open);
    }

    @Override
    public void control(BucketPlan plan, Dimension dimension, double rateFactor, long pauseNanos) {
        if (!(rateFactor > 0 && rateFactor <= 1)) {
            throw new IllegalArgumentException("rateFactor: " + rateFactor + " (expected: in (0, 1])");
        }
        PlanArgs p = single(plan);
        byte[][] k = {p.key()[0], Packing.key(keys.controls(keys.tagOf(plan.scope()), plan))};
        link.callList(Library.Fn.BUCKET, k, clock(), calendar(), "control", (long) dimension.ordinal(),
                Double.toString(rateFactor), pauseNanos, p.packed(), config.replicaId(), CONTROL_FRESH_FOR.toNanos());
        afterSuccess();
    }

    /**
     * How long a replica's control proposal (factor and pause of one dimension) counts in the
     * fleet's merge after that replica last sent one: the lowest fresh factor and the latest fresh
     * pause end are in force. A replica that cut and then fell silent holds its cut this long.
     */
    public static final java.time.Duration CONTROL_FRESH_FOR = java.time.Duration.ofSeconds(60);

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        bucketOp(plan, "sync", dimension, Long.toString(remaining), 0);
    }

    @Override
    public BucketState state(BucketPlan plan) {
        List<Object> rows = bucketOp(plan, "state", Dimension.REQUESTS, "0", 0);
        List<BucketState.DimensionState> dims = new ArrayList<>(rows.size());
        for (Object o : rows) {
            List<?> r = (List<?>) o;
            dims.add(new BucketState.DimensionState(Dimension.byOrdinal(((Long) r.get(0)).intValue()),
                    Double.parseDouble((String) r.get(1)), (Long) r.get(2), Double.parseDouble((String) r.get(3)),
                    (Long) r.get(4), (Long) r.get(5), (Long) r.get(6), (Long) r.get(7), (Long) r.get(8),
                    (Long) r.get(9), (Long) r.get(10)));
        }
        return new BucketState(plan.key(), dims);
    }

    private List<Object> bucketOp(BucketPlan plan, String op, Dimension d, String x, long pause) {
        PlanArgs p = single(plan);
        List<Object> out = link.callList(Library.Fn.BUCKET, p.key(), clock(), calendar(), op, (long) d.ordinal(), x,
                pause, p.packed());
        afterSuccess();
        return out;
    }

    @Override
    public void close() {
        link.close();
    }

    /** Time for a script: empty for the server's clock, else the test clock's reading. */
    byte[] clock() {
        Optional<NanoClock> test = config.testClock();
        return test.isPresent() ? Packing.clock(test.get().nanos(), test.get().epochMillis()) : SERVER_TIME;
    }

    /** The reset zone's midnights around now, packed; rebuilt once a day. */
    byte[] calendar() {
        long ms = wall.epochMillis();
        Days t = days;
        if (t == null || !t.table().centredOn(ms)) {
            DayTable table = DayTable.around(ms, config.dailyResetZone());
            t = new Days(table, Packing.calendar(table));
            days = t;
        }
        return t.packed();
    }

    PathLayout layout(BucketPlan[] path) {
        PathLayout p = paths.get(path);
        if (p == null) {
            if (paths.size() > 100_000) {
                // Paths are cached by array identity; a long run of reloads must not grow this forever.
                paths.clear();
            }
            p = paths.computeIfAbsent(path, x -> PathLayout.of(x, keys));
        }
        return p;
    }

    private PlanArgs single(BucketPlan plan) {
        PlanArgs p = singles.get(plan.key());
        if (p == null || p.plan() != plan) {
            p = new PlanArgs(plan, new byte[][] {Packing.key(keys.bucket(keys.tagOf(plan.scope()), plan))},
                    Packing.plans(new BucketPlan[] {plan}, new int[] {0}));
            singles.put(plan.key(), p);
        }
        return p;
    }

    /** The key of {@code plan}'s bucket, as scripts get it. */
    byte[] bucketKey(BucketPlan plan) {
        return single(plan).key()[0];
    }

    private void registerGroup(String tag) {
        if (knownGroups.add(tag)) {
            try {
                link.await(link.commands().sadd(keys.groups(), tag));
            } catch (RuntimeException e) {
                knownGroups.remove(tag);
                throw e;
            }
        }
    }

    private Set<String> groups() {
        Set<String> all = new java.util.HashSet<>(link.await(link.commands().smembers(keys.groups())));
        all.add(keys.namespace);
        knownGroups.addAll(all);
        return all;
    }

    private void enqueue(Pending p) {
        if (pendingCount.incrementAndGet() > MAX_PENDING) {
            // Past this the lease's own expiry is the backstop.
            pendingCount.decrementAndGet();
            return;
        }
        pending.add(p);
    }

    private void afterSuccess() {
        if (pendingCount.get() > 0) {
            drainPending(64);
        }
    }

    /** Replays queued settlements and releases, oldest first, while Redis answers. */
    private void drainPending(int max) {
        if (!draining.compareAndSet(false, true)) {
            return;
        }
        try {
            for (int n = 0; n < max; n++) {
                Pending p = pending.peek();
                if (p == null) {
                    return;
                }
                endGroups(p.lease(), p.lease().path.groups.length, p.actual());
                pending.poll();
                pendingCount.decrementAndGet();
            }
        } catch (StoreUnavailableException e) {
            // Still away: keep the rest for the next successful call.
        } finally {
            draining.set(false);
        }
    }

    private static RedisLease lease(LeaseHandle handle) {
        if (handle instanceof RedisLease r) {
            return r;
        }
        throw new IllegalArgumentException("lease: " + handle.getClass().getName() + " (expected: a lease of this store)");
    }

    /** Keys of this namespace, for tests and operators: every key starts with this. */
    public String keyPrefix() {
        return keys.namespace + ":";
    }

    KeyLayout keys() {
        return keys;
    }

    RedisLink link() {
        return link;
    }

    Batcher batcher() {
        return batcher;
    }

    /** A new lease id of this replica. */
    String nextLeaseId() {
        return config.replicaId() + "-" + nextLease.incrementAndGet();
    }
}
