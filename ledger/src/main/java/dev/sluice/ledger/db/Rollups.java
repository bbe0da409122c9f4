package dev.sluice.ledger.db;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import dev.sluice.runtime.event.TokenCounts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rollups, kept incrementally: the rows of a batch are summed in memory per rollup key, and each
 * sum is added to its row in the transaction that inserts the batch's request rows, so a request is
 * in the rollups exactly when its row is (a replayed batch adds nothing twice).
 *
 * <p>Each writer has rollup rows of its own ({@code writer} is in every key), so replicas never
 * update one row at once; queries sum over writers. Keys are written in one sorted order, so even
 * transactions that did share rows could not deadlock.
 */
final class Rollups {

    /** Reports read these: a request refused by the provider after Sluice admitted it. */
    static final String PROVIDER_REJECTED = "admitted_then_provider_rejected";

    /** One rollup table: its key columns, then measures summed, kept as the maximum, or summed as reals. */
    record Table(int index, String name, List<String> keys, List<String> sums, List<String> maxes,
            List<String> realSums) {

        String upsert(Dialect d) {
            List<String> cols = new ArrayList<>(keys);
            cols.addAll(sums);
            cols.addAll(maxes);
            cols.addAll(realSums);
            List<String> sets = new ArrayList<>();
            for (String m : sums) {
                sets.add(m + " = " + name + "." + m + " + excluded." + m);
            }
            for (String m : maxes) {
                sets.add(m + " = " + d.greatest(name + "." + m, "excluded." + m));
            }
            for (String m : realSums) {
                sets.add(m + " = " + name + "." + m + " + excluded." + m);
            }
            return "INSERT INTO " + name + " (" + String.join(", ", cols) + ") VALUES ("
                    + String.join(", ", java.util.Collections.nCopies(cols.size(), "?")) + ") ON CONFLICT ("
                    + String.join(", ", keys) + ") DO UPDATE SET " + String.join(", ", sets);
        }
    }

    static final Table USAGE = new Table(0, "usage_rollup",
            List.of("grain", "period_start", "org", "tenant", "team", "api_key", "profile", "deployment", "provider",
                    "traffic_class", "writer"),
            List.of("requests", "answered", "refused_locally", "provider_rejected", "client_gone", "failed", "queued",
                    "streaming", "attempts", "fallbacks", "estimated_input", "estimated_output",
                    "estimated_cache_read", "input_tokens", "output_tokens", "cache_read_tokens", "usage_unreported",
                    "queue_wait_ns", "latency_ns", "ttft_ns", "ttft_count", "borrowed", "borrowed_input",
                    "borrowed_output", "estimated_cost_micros", "cost_micros"),
            List.of(), List.of());

    static final Table ATTEMPTS = new Table(1, "attempt_rollup",
            List.of("grain", "period_start", "deployment", "provider", "provider_model", "profile", "writer"),
            List.of("attempts", "answered", "throttled", "refused", "failed", "client_gone", "never_sent", "settled",
                    "released", "held", "estimated_input", "estimated_output", "estimated_cache_read",
                    "input_tokens", "output_tokens", "cache_read_tokens", "uncounted_cache_read", "reserved_input",
                    "reserved_output", "used_input", "used_output", "stranded_input", "stranded_output",
                    "overage_input", "overage_output", "latency_ns"),
            List.of(), List.of());

    static final Table RATIOS = new Table(2, "estimate_ratio_rollup",
            List.of("grain", "period_start", "profile", "deployment", "dimension", "bucket", "writer"),
            List.of("samples", "estimated", "actual"), List.of(), List.of("ratio_sum"));

    static final Table RETRY_AFTER = new Table(3, "retry_after_rollup",
            List.of("grain", "period_start", "source", "provider", "deployment", "limiter", "bucket", "writer"),
            List.of("samples", "total_ms"), List.of("max_ms"), List.of());

    static final List<Table> ALL = List.of(USAGE, ATTEMPTS, RATIOS, RETRY_AFTER);

    private Rollups() {}

    /**
     * Sums of one batch, per table and key, to be added to the stored rows. A request adds to its
     * sums in place (no measure array per request, no copy of its key): this runs once per request
     * and attempt on the writer thread.
     */
    static final class Batch {
        private final String writer;
        // One map per table, by the table's place in ALL (a Table record hashes all its column names).
        private final List<Map<Key, Sum>> sums = new ArrayList<>();

        Batch(String writer) {
            this.writer = writer;
            for (Table t : ALL) {
                sums.add(new HashMap<>());
            }
        }

        /**
         * Adds one request (and its attempts) that was newly recorded, to its hour; the days are
         * summed from the hours when the batch is written.
         */
        void add(RequestEvent e) {
            Grain g = Grain.HOUR;
            Long period = g.floor(Math.floorDiv(e.receivedAtEpochMillis(), 1000));
            String profile = text(e.profile());
            addRequest(g, period, profile, e);
            for (AttemptEvent a : e.attemptEvents()) {
                addAttempt(g, period, profile, a);
            }
        }

        private void addRequest(Grain g, Long period, String profile, RequestEvent e) {
            Caller c = e.caller().orElse(null);
            Key key = new Key(g.code(), period, c == null ? "" : c.org(), c == null ? "" : c.tenant(),
                    c == null ? "" : c.team(), c == null ? "" : c.apiKeyId(), profile, text(e.deployment()),
                    text(e.provider()), text(e.trafficClass()), writer);
            String gd = e.gatewayDecision().orElse("");
            boolean providerRejected = gd.equals(PROVIDER_REJECTED);
            boolean refusedLocally = !gd.isEmpty() && !providerRejected;
            long[] m = sum(USAGE, key).longs;
            TokenCounts est = e.estimate();
            TokenCounts used = e.usage();
            int i = 0;
            m[i++] += 1;
            m[i++] += flag(e.status() >= 200 && e.status() < 300);
            m[i++] += flag(refusedLocally);
            m[i++] += flag(providerRejected);
            m[i++] += flag(e.status() == RequestEvent.CLIENT_CLOSED_REQUEST);
            m[i++] += flag(e.status() >= 500);
            m[i++] += flag(e.decision().equals("queued"));
            m[i++] += flag(e.streaming());
            m[i++] += e.attempts();
            m[i++] += flag(e.fallback().isPresent());
            m[i++] += est.input();
            m[i++] += est.output();
            m[i++] += est.cacheRead();
            m[i++] += used.input();
            m[i++] += used.output();
            m[i++] += used.cacheRead();
            m[i++] += flag(e.attempts() > 0 && !e.usageReported());
            m[i++] += e.queueWaitNanos();
            m[i++] += e.latencyNanos();
            m[i++] += e.timeToFirstTokenNanos().orElse(0);
            m[i++] += flag(e.timeToFirstTokenNanos().isPresent());
            m[i++] += flag(e.borrowed());
            m[i++] += e.borrowed() ? used.input() : 0;
            m[i++] += e.borrowed() ? used.output() : 0;
            m[i++] += est.costMicros();
            m[i] += used.costMicros();
            if (refusedLocally && e.retryAfterMillis().isPresent()) {
                retryAfter(new Key(g.code(), period, "gateway", text(e.provider()), text(e.deployment()),
                        e.decider().map(Decider::limiter).orElse("none"),
                        (long) Buckets.retryAfterBucket(e.retryAfterMillis().getAsLong()), writer),
                        e.retryAfterMillis().getAsLong());
            }
        }

        private void addAttempt(Grain g, Long period, String profile, AttemptEvent a) {
            Key key = new Key(g.code(), period, a.deployment(), a.provider(), a.providerModel(), profile, writer);
            AttemptResult r = a.result();
            boolean settled = a.settlement() == Settlement.SETTLED;
            TokenCounts est = a.estimate();
            TokenCounts used = a.usage();
            long cacheCountedEst = a.cacheReadsCounted() ? est.cacheRead() : 0;
            long cacheCountedUsed = a.cacheReadsCounted() ? used.cacheRead() : 0;
            long reservedIn = settled ? est.input() + cacheCountedEst : 0;
            long reservedOut = settled ? est.output() : 0;
            long usedIn = settled ? used.input() + cacheCountedUsed : 0;
            long usedOut = settled ? used.output() : 0;
            long[] m = sum(ATTEMPTS, key).longs;
            int i = 0;
            m[i++] += 1;
            m[i++] += flag(r == AttemptResult.ANSWERED);
            m[i++] += flag(r == AttemptResult.THROTTLED);
            m[i++] += flag(r == AttemptResult.REFUSED);
            m[i++] += flag(r == AttemptResult.FAILED);
            m[i++] += flag(r == AttemptResult.CLIENT_GONE);
            m[i++] += flag(r == AttemptResult.NEVER_SENT);
            m[i++] += flag(settled);
            m[i++] += flag(a.settlement() == Settlement.RELEASED);
            m[i++] += flag(a.settlement() == Settlement.HELD);
            m[i++] += est.input();
            m[i++] += est.output();
            m[i++] += est.cacheRead();
            m[i++] += used.input();
            m[i++] += used.output();
            m[i++] += used.cacheRead();
            m[i++] += a.cacheReadsCounted() ? 0 : used.cacheRead();
            m[i++] += reservedIn;
            m[i++] += reservedOut;
            m[i++] += usedIn;
            m[i++] += usedOut;
            m[i++] += Math.max(0, reservedIn - usedIn);
            m[i++] += Math.max(0, reservedOut - usedOut);
            m[i++] += Math.max(0, usedIn - reservedIn);
            m[i++] += Math.max(0, usedOut - reservedOut);
            m[i] += a.latencyNanos();
            if (r == AttemptResult.ANSWERED && a.usageReported()) {
                long estPrompt = est.input() + est.cacheRead();
                long usedPrompt = used.input() + used.cacheRead();
                ratio(g, period, profile, a.deployment(), "input", estPrompt, usedPrompt);
                ratio(g, period, profile, a.deployment(), "output", est.output(), used.output());
            }
            if (a.providerRetryAfterMillis().isPresent()) {
                long ms = a.providerRetryAfterMillis().getAsLong();
                retryAfter(new Key(g.code(), period, "provider", a.provider(), a.deployment(),
                        a.limitHit().orElse("unknown"), (long) Buckets.retryAfterBucket(ms), writer), ms);
            }
        }

        private void retryAfter(Key key, long ms) {
            long[] m = sum(RETRY_AFTER, key).longs;
            m[0] += 1;
            m[1] += ms;
            m[2] = Math.max(m[2], ms);
        }

        private void ratio(Grain g, Long period, String profile, String deployment, String dimension, long estimated,
                long actual) {
            if (estimated <= 0) {
                return; // no ratio to an estimate of nothing
            }
            double ratio = (double) actual / estimated;
            Sum s = sum(RATIOS, new Key(g.code(), period, profile, deployment, dimension,
                    (long) Buckets.ratioBucket(ratio), writer));
            s.longs[0] += 1;
            s.longs[1] += estimated;
            s.longs[2] += actual;
            s.reals[0] += ratio;
        }

        /** The batch's sum of {@code key} in {@code t}, at zero when new. */
        private Sum sum(Table t, Key key) {
            Map<Key, Sum> into = sums.get(t.index());
            Sum s = into.get(key);
            if (s == null) {
                s = Sum.zero(t);
                into.put(key, s);
            }
            return s;
        }

        /** Adds {@code from} to {@code into}: sums summed, maxima kept. */
        private static void merge(Table t, Sum into, Sum from) {
            int sumCount = t.sums().size();
            for (int i = 0; i < into.longs.length; i++) {
                into.longs[i] = i < sumCount ? into.longs[i] + from.longs[i] : Math.max(into.longs[i], from.longs[i]);
            }
            for (int i = 0; i < into.reals.length; i++) {
                into.reals[i] += from.reals[i];
            }
        }

        /** The hours' sums and, summed from them, the days'. */
        private static Map<Key, Sum> withDays(Table t, Map<Key, Sum> hours) {
            Map<Key, Sum> all = new HashMap<>(hours);
            for (Map.Entry<Key, Sum> h : hours.entrySet()) {
                Object[] parts = h.getKey().parts.clone();
                parts[0] = Grain.DAY.code();
                parts[1] = Grain.DAY.floor((Long) parts[1]);
                Sum day = all.computeIfAbsent(new Key(parts), k -> Sum.zero(t));
                merge(t, day, h.getValue());
            }
            return all;
        }

        /** Adds every sum to its stored row, table by table, keys in sorted order. */
        void write(Connection c, Dialect d) throws SQLException {
            for (Table t : ALL) {
                Map<Key, Sum> hours = sums.get(t.index());
                if (hours.isEmpty()) {
                    continue;
                }
                Map<Key, Sum> rows = withDays(t, hours);
                List<Map.Entry<Key, Sum>> sorted = new ArrayList<>(rows.entrySet());
                sorted.sort(Map.Entry.comparingByKey(KEY_ORDER));
                try (PreparedStatement s = c.prepareStatement(t.upsert(d))) {
                    for (Map.Entry<Key, Sum> row : sorted) {
                        int i = 1;
                        for (Object k : row.getKey().parts) {
                            if (k instanceof Long l) {
                                s.setLong(i++, l);
                            } else {
                                s.setString(i++, (String) k);
                            }
                        }
                        for (long v : row.getValue().longs) {
                            s.setLong(i++, v);
                        }
                        for (double v : row.getValue().reals) {
                            s.setDouble(i++, v);
                        }
                        s.addBatch();
                    }
                    s.executeBatch();
                }
            }
        }
    }

    /**
     * A rollup key: its columns' values in the table's key order (text, or Long for periods and
     * buckets), hashed once. The varargs array is the key's own: nothing copies it.
     */
    static final class Key {
        final Object[] parts;
        private final int hash;

        Key(Object... parts) {
            this.parts = parts;
            this.hash = Arrays.hashCode(parts);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.parts, parts);
        }
    }

    private record Sum(long[] longs, double[] reals) {
        static Sum zero(Table t) {
            return new Sum(new long[t.sums().size() + t.maxes().size()], new double[t.realSums().size()]);
        }
    }

    private static final Comparator<Key> KEY_ORDER = (ka, kb) -> {
        Object[] a = ka.parts;
        Object[] b = kb.parts;
        for (int i = 0; i < a.length; i++) {
            Object x = a[i];
            Object y = b[i];
            int c = x instanceof Long lx ? Long.compare(lx, (Long) y) : ((String) x).compareTo((String) y);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    };

    private static long flag(boolean b) {
        return b ? 1 : 0;
    }

    private static String text(Optional<String> v) {
        return v.orElse("");
    }
}
