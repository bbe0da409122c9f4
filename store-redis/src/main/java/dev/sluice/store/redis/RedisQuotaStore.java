package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.BucketState;
import dev.sluice.store.LeaseHandle;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.ReserveOutcome;
import dev.sluice.store.SettleOutcome;
import dev.sluice.time.NanoClock;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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

    /** Version of the key layout and value formats; stored in the namespace's meta key. */
    public static final int FORMAT_VERSION = 1;

    private static final int MAX_PENDING = 100_000;
    private static final int EXPIRE_BATCH = 256;
    static final int HEADER = 9;
    private static final String KINDS;

    static {
        StringBuilder k = new StringBuilder();
        for (Dimension d : Dimension.values()) {
            k.append(switch (d.kind()) {
                case RATE -> 'R';
                case GAUGE -> 'G';
                case DAILY -> 'D';
            });
        }
        KINDS = k.toString();
    }

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
    private volatile DayTable days;

    /** A settlement or release waiting for Redis to answer again. {@code actual} null: release. */
    private record Pending(RedisLease lease, long[] actual) {}

    private record PlanArgs(BucketPlan plan, String[] args) {}

    private RedisQuotaStore(RedisStoreConfig config, RedisLink link) {
        this.config = config;
        this.link = link;
        this.keys = new KeyLayout(config.namespace(), config.grouping());
        this.wall = config.testClock().orElse(NanoClock.system());
    }

    /**
     * Connects to Redis at {@code uri} ({@code redis://host:port/db}) with a connection of its own,
     * loads the scripts and checks the namespace's format version.
     *
     * @throws StoreUnavailableException if Redis cannot be reached
     * @throws IllegalStateException if the namespace holds state of another format version
     */
    public static RedisQuotaStore connect(String uri, RedisStoreConfig config) {
        return connect(RedisURI.create(uri), config);
    }

    /** As {@link #connect(String, RedisStoreConfig)}. */
    public static RedisQuotaStore connect(RedisURI uri, RedisStoreConfig config) {
        Objects.requireNonNull(config, "config");
        RedisLink link = RedisLink.open(uri, config.commandTimeout(), config.reconnectDelay());
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
        PathLayout layout = layout(path);
        RedisLease lease = new RedisLease(config.replicaId() + "-" + nextLease.incrementAndGet(), layout);
        int granted = 0;
        try {
            for (PathLayout.Group g : layout.groups) {
                registerGroup(g.tag());
                List<Object> r = reserveGroup(g, lease.id(), amounts, leaseTtlNanos);
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

    private List<Object> reserveGroup(PathLayout.Group g, String leaseId, long[] amounts, long ttl) {
        String[] k = new String[2 + g.bucketKeys().length];
        k[0] = g.leaseSet();
        k[1] = g.leasePrefix() + leaseId;
        System.arraycopy(g.bucketKeys(), 0, k, 2, g.bucketKeys().length);
        String[] a = new String[HEADER + 4 + Dimension.COUNT + g.reservePlanArgs().length];
        header(a);
        int i = HEADER;
        a[i++] = leaseId;
        a[i++] = Long.toString(ttl);
        a[i++] = Integer.toString(config.reclaimOnReserve());
        a[i++] = g.leasePrefix();
        for (int d = 0; d < Dimension.COUNT; d++) {
            a[i++] = Long.toString(amounts[d]);
        }
        System.arraycopy(g.reservePlanArgs(), 0, a, i, g.reservePlanArgs().length);
        return link.eval(Script.RESERVE, ScriptOutputType.MULTI, k, a);
    }

    private static ReserveOutcome.Short shortfall(BucketPlan[] path, List<Object> r) {
        int index = ((Long) r.get(1)).intValue();
        Scope scope = path[index].scope();
        return new ReserveOutcome.Short(index, scope, Dimension.byOrdinal(((Long) r.get(2)).intValue()),
                (Long) r.get(3), ((Long) r.get(4)) == 1L, ((Long) r.get(5)) == 1L, (Long) r.get(6), (Long) r.get(7),
                (Long) r.get(8));
    }

    @Override
    public SettleOutcome settle(LeaseHandle handle, long[] actual) {
        return end(lease(handle), actual.clone());
    }

    @Override
    public SettleOutcome release(LeaseHandle handle) {
        return end(lease(handle), null);
    }

    private SettleOutcome end(RedisLease lease, long[] actual) {
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
    private boolean endGroups(RedisLease lease, int count, long[] actual) {
        boolean any = false;
        for (int gi = 0; gi < count; gi++) {
            PathLayout.Group g = lease.path.groups[gi];
            String[] k = new String[2 + g.bucketKeys().length];
            k[0] = g.leaseSet();
            k[1] = g.leasePrefix() + lease.id();
            System.arraycopy(g.bucketKeys(), 0, k, 2, g.bucketKeys().length);
            String[] a = new String[HEADER + 2 + Dimension.COUNT + g.settlePlanArgs().length];
            header(a);
            int i = HEADER;
            a[i++] = lease.id();
            a[i++] = actual == null ? "r" : "s";
            for (int d = 0; d < Dimension.COUNT; d++) {
                a[i++] = actual == null ? "0" : Long.toString(actual[d]);
            }
            System.arraycopy(g.settlePlanArgs(), 0, a, i, g.settlePlanArgs().length);
            Long r = link.eval(Script.SETTLE, ScriptOutputType.INTEGER, k, a);
            any |= r == 1L;
        }
        return any;
    }

    @Override
    public int expireLeases() {
        drainPending(Integer.MAX_VALUE);
        int ended = 0;
        for (String tag : groups()) {
            for (String set : new String[] {keys.leaseSet(tag), keys.leasePartSet(tag)}) {
                String[] k = {set};
                String[] a = new String[HEADER + 2];
                header(a);
                a[HEADER] = keys.leasePrefix(tag);
                a[HEADER + 1] = Integer.toString(EXPIRE_BATCH);
                long n;
                do {
                    n = link.<Long>eval(Script.EXPIRE, ScriptOutputType.INTEGER, k, a);
                    if (set.equals(keys.leaseSet(tag))) {
                        ended += (int) n;
                    }
                } while (n == EXPIRE_BATCH);
            }
        }
        return ended;
    }

    /** Leases open in the whole namespace, of every replica. */
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
        bucketOp(plan, "control", dimension, Double.toString(rateFactor), Long.toString(pauseNanos));
    }

    @Override
    public void syncDown(BucketPlan plan, Dimension dimension, long remaining) {
        bucketOp(plan, "sync", dimension, Long.toString(remaining), "0");
    }

    @Override
    public BucketState state(BucketPlan plan) {
        List<Object> rows = bucketOp(plan, "state", Dimension.REQUESTS, "0", "0");
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

    private List<Object> bucketOp(BucketPlan plan, String op, Dimension d, String x, String pause) {
        String[] planArgs = planArgs(plan);
        String[] a = new String[HEADER + 4 + planArgs.length];
        header(a);
        a[HEADER] = op;
        a[HEADER + 1] = Integer.toString(d.ordinal());
        a[HEADER + 2] = x;
        a[HEADER + 3] = pause;
        System.arraycopy(planArgs, 0, a, HEADER + 4, planArgs.length);
        List<Object> out = link.eval(Script.BUCKET, ScriptOutputType.MULTI,
                new String[] {keys.bucket(keys.tagOf(plan.scope()), plan)}, a);
        afterSuccess();
        return out;
    }

    @Override
    public void close() {
        link.close();
    }

    /** The nine arguments every script starts with: dimension kinds, time, the reset zone's calendar. */
    void header(String[] a) {
        a[0] = KINDS;
        long ms = wall.epochMillis();
        if (config.testClock().isPresent()) {
            a[1] = Long.toString(config.testClock().get().nanos());
            a[2] = Long.toString(ms);
        } else {
            a[1] = "";
            a[2] = "";
        }
        DayTable t = days;
        if (t == null || !t.centredOn(ms)) {
            t = DayTable.around(ms, config.dailyResetZone());
            days = t;
        }
        a[3] = Long.toString(t.firstDay());
        for (int i = 0; i < DayTable.MIDNIGHTS; i++) {
            a[4 + i] = Long.toString(t.midnights()[i]);
        }
    }

    private PathLayout layout(BucketPlan[] path) {
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

    String[] planArgs(BucketPlan plan) {
        PlanArgs p = singles.get(plan.key());
        if (p == null || p.plan() != plan) {
            p = new PlanArgs(plan, PathLayout.planArgs(plan));
            singles.put(plan.key(), p);
        }
        return p.args();
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
}
