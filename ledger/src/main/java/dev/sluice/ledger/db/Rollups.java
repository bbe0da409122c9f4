package dev.sluice.ledger.db;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.Settlement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
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

    /** Sums of one batch, per table and key, to be added to the stored rows. */
    static final class Batch {
        private final String writer;
        // One map per table, by the table's place in ALL (a Table record hashes all its column names).
        private final List<Map<List<Object>, Sum>> sums = new ArrayList<>();

        Batch(String writer) {
            this.writer = writer;
            for (int i = 0; i < ALL.size(); i++) {
                sums.add(new HashMap<>());
            }
        }

        /**
         * Adds one request (and its attempts) that was newly recorded, to its hour; the days are
         * summed from the hours when the batch is written.
         */
        void add(RequestEvent e) {
            Grain g = Grain.HOUR;
            long period = g.floor(Math.floorDiv(e.receivedAtEpochMillis(), 1000));
            addRequest(g, period, e);
            for (AttemptEvent a : e.attemptEvents()) {
                addAttempt(g, period, e, a);
            }
        }

        private void addRequest(Grain g, long period, RequestEvent e) {
            Optional<Caller> c = e.caller();
            List<Object> key = List.of(g.code(), period, text(c.map(Caller::org)), text(c.map(Caller::tenant)),
                    text(c.map(Caller::team)), text(c.map(Caller::apiKeyId)), text(e.profile()), text(e.deployment()),
                    text(e.provider()), text(e.trafficClass()), writer);
            String gd = e.gatewayDecision().orElse("");
            boolean providerRejected = gd.equals(PROVIDER_REJECTED);
            boolean refusedLocally = !gd.isEmpty() && !providerRejected;
            long[] m = {1, flag(e.status() >= 200 && e.status() < 300), flag(refusedLocally), flag(providerRejected),
                    flag(e.status() == RequestEvent.CLIENT_CLOSED_REQUEST), flag(e.status() >= 500),
                    flag(e.decision().equals("queued")), flag(e.streaming()), e.attempts(),
                    flag(e.fallback().isPresent()), e.estimate().input(), e.estimate().output(),
                    e.estimate().cacheRead(), e.usage().input(), e.usage().output(), e.usage().cacheRead(),
                    flag(e.attempts() > 0 && !e.usageReported()), e.queueWaitNanos(), e.latencyNanos(),
                    e.timeToFirstTokenNanos().orElse(0), flag(e.timeToFirstTokenNanos().isPresent()),
                    flag(e.borrowed()), e.borrowed() ? e.usage().input() : 0, e.borrowed() ? e.usage().output() : 0,
                    e.estimate().costMicros(), e.usage().costMicros()};
            add(USAGE, key, m, NO_REALS);
            if (refusedLocally && e.retryAfterMillis().isPresent()) {
                long ms = e.retryAfterMillis().getAsLong();
                add(RETRY_AFTER, List.of(g.code(), period, "gateway", text(e.provider()), text(e.deployment()),
                        e.decider().map(Decider::limiter).orElse("none"), (long) Buckets.retryAfterBucket(ms), writer),
                        new long[] {1, ms, ms}, NO_REALS);
            }
        }

        private void addAttempt(Grain g, long period, RequestEvent e, AttemptEvent a) {
            String profile = text(e.profile());
            List<Object> key = List.of(g.code(), period, a.deployment(), a.provider(), a.providerModel(), profile,
                    writer);
            AttemptResult r = a.result();
            boolean settled = a.settlement() == Settlement.SETTLED;
            long cacheCountedEst = a.cacheReadsCounted() ? a.estimate().cacheRead() : 0;
            long cacheCountedUsed = a.cacheReadsCounted() ? a.usage().cacheRead() : 0;
            long reservedIn = settled ? a.estimate().input() + cacheCountedEst : 0;
            long reservedOut = settled ? a.estimate().output() : 0;
            long usedIn = settled ? a.usage().input() + cacheCountedUsed : 0;
            long usedOut = settled ? a.usage().output() : 0;
            long[] m = {1, flag(r == AttemptResult.ANSWERED), flag(r == AttemptResult.THROTTLED),
                    flag(r == AttemptResult.REFUSED), flag(r == AttemptResult.FAILED),
                    flag(r == AttemptResult.CLIENT_GONE), flag(r == AttemptResult.NEVER_SENT), flag(settled),
                    flag(a.settlement() == Settlement.RELEASED), flag(a.settlement() == Settlement.HELD),
                    a.estimate().input(), a.estimate().output(), a.estimate().cacheRead(), a.usage().input(),
                    a.usage().output(), a.usage().cacheRead(), a.cacheReadsCounted() ? 0 : a.usage().cacheRead(),
                    reservedIn, reservedOut, usedIn, usedOut, Math.max(0, reservedIn - usedIn),
                    Math.max(0, reservedOut - usedOut), Math.max(0, usedIn - reservedIn),
                    Math.max(0, usedOut - reservedOut), a.latencyNanos()};
            add(ATTEMPTS, key, m, NO_REALS);
            if (r == AttemptResult.ANSWERED && a.usageReported()) {
                long estPrompt = a.estimate().input() + a.estimate().cacheRead();
                long usedPrompt = a.usage().input() + a.usage().cacheRead();
                ratio(g, period, profile, a.deployment(), "input", estPrompt, usedPrompt);
                ratio(g, period, profile, a.deployment(), "output", a.estimate().output(), a.usage().output());
            }
            if (a.providerRetryAfterMillis().isPresent()) {
                long ms = a.providerRetryAfterMillis().getAsLong();
                add(RETRY_AFTER, List.of(g.code(), period, "provider", a.provider(), a.deployment(),
                        a.limitHit().orElse("unknown"), (long) Buckets.retryAfterBucket(ms), writer),
                        new long[] {1, ms, ms}, NO_REALS);
            }
        }

        private void ratio(Grain g, long period, String profile, String deployment, String dimension, long estimated,
                long actual) {
            if (estimated <= 0) {
                return; // no ratio to an estimate of nothing
            }
            double ratio = (double) actual / estimated;
            add(RATIOS, List.of(g.code(), period, profile, deployment, dimension, (long) Buckets.ratioBucket(ratio),
                    writer), new long[] {1, estimated, actual}, new double[] {ratio});
        }

        private void add(Table t, List<Object> key, long[] longs, double[] reals) {
            merge(sums.get(t.index()), t, key, longs, reals);
        }

        private static void merge(Map<List<Object>, Sum> into, Table t, List<Object> key, long[] longs,
                double[] reals) {
            Sum s = into.computeIfAbsent(key, k -> new Sum(new long[longs.length], new double[reals.length]));
            int sumCount = t.sums().size();
            for (int i = 0; i < longs.length; i++) {
                s.longs[i] = i < sumCount ? s.longs[i] + longs[i] : Math.max(s.longs[i], longs[i]);
            }
            for (int i = 0; i < reals.length; i++) {
                s.reals[i] += reals[i];
            }
        }

        /** The hours' sums and, summed from them, the days'. */
        private static Map<List<Object>, Sum> withDays(Table t, Map<List<Object>, Sum> hours) {
            Map<List<Object>, Sum> all = new HashMap<>(hours);
            for (Map.Entry<List<Object>, Sum> h : hours.entrySet()) {
                List<Object> key = new ArrayList<>(h.getKey());
                key.set(0, Grain.DAY.code());
                key.set(1, Grain.DAY.floor((Long) key.get(1)));
                merge(all, t, List.copyOf(key), h.getValue().longs, h.getValue().reals);
            }
            return all;
        }

        /** Adds every sum to its stored row, table by table, keys in sorted order. */
        void write(Connection c, Dialect d) throws SQLException {
            for (Table t : ALL) {
                Map<List<Object>, Sum> hours = sums.get(t.index());
                if (hours.isEmpty()) {
                    continue;
                }
                Map<List<Object>, Sum> rows = withDays(t, hours);
                List<Map.Entry<List<Object>, Sum>> sorted = new ArrayList<>(rows.entrySet());
                sorted.sort(Map.Entry.comparingByKey(KEY_ORDER));
                try (PreparedStatement s = c.prepareStatement(t.upsert(d))) {
                    for (Map.Entry<List<Object>, Sum> row : sorted) {
                        int i = 1;
                        for (Object k : row.getKey()) {
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

    private record Sum(long[] longs, double[] reals) {}

    private static final double[] NO_REALS = {};

    private static final Comparator<List<Object>> KEY_ORDER = (a, b) -> {
        for (int i = 0; i < a.size(); i++) {
            Object x = a.get(i);
            Object y = b.get(i);
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
