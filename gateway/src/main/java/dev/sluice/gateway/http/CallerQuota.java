package dev.sluice.gateway.http;

import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import dev.sluice.time.NanoClock;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells a caller its own remaining quota (its key's and its tenant's buckets, never the shared
 * provider deployment), in the IETF {@code RateLimit-Policy}/{@code RateLimit} fields and in the
 * OpenAI-style {@code x-ratelimit-*} headers existing clients already pace themselves by. Reads
 * bucket state only; it never changes it.
 *
 * <p>What a key's headers say is kept per key: the policy changes only with the configuration,
 * and the readings are taken through {@code reads}. With the in-memory store that runs in place,
 * at most every 10 ms per key; with a store that waits on the network it runs on a worker at most
 * once per {@code maxAge} per key, and answers carry the latest reading, so an event loop never
 * waits on the store for a header.
 */
public final class CallerQuota {

    private final QuotaGovernor governor;
    private final Executor reads;
    private final long maxAgeNanos;
    private final NanoClock clock;
    private final ConcurrentHashMap<String, KeyQuota> byKey = new ConcurrentHashMap<>();

    /**
     * Reads in place, for a store that answers from memory, reusing a reading for
     * {@link #IN_PLACE_MAX_AGE_NANOS}: far below anything a client paces by, and a key busy
     * enough to send many answers in that time reads its buckets once instead of per answer.
     */
    public CallerQuota(QuotaGovernor governor) {
        this(governor, Runnable::run, IN_PLACE_MAX_AGE_NANOS);
    }

    /** How long an in-place reading is reused: 10 ms. */
    public static final long IN_PLACE_MAX_AGE_NANOS = 10_000_000L;

    /**
     * @param reads runs a reading of the key's buckets (in place, or on a worker)
     * @param maxAgeNanos a reading younger than this is reused
     */
    public CallerQuota(QuotaGovernor governor, Executor reads, long maxAgeNanos) {
        this.governor = Objects.requireNonNull(governor, "governor");
        this.reads = Objects.requireNonNull(reads, "reads");
        this.maxAgeNanos = maxAgeNanos;
        this.clock = governor.clock();
    }

    /** Adds the headers for {@code key}; adds nothing when neither its key nor its tenant has limits (or, reading on a worker, before the first reading). */
    public void write(MultiMap headers, KeyConfig key) {
        GovernorConfig config = governor.config();
        KeyQuota q = byKey.get(key.id());
        if (q == null || q.config != config) {
            q = new KeyQuota(config, List.of(Scope.of(ScopeLevel.API_KEY, key.id()), Scope.of(ScopeLevel.TENANT, key.tenant())));
            byKey.put(key.id(), q);
        }
        long now = clock.nanos();
        Reading r = q.reading;
        if ((r == null || now - r.takenAtNanos >= maxAgeNanos) && q.refreshing.compareAndSet(false, true)) {
            KeyQuota target = q;
            reads.execute(() -> {
                try {
                    target.reading = read(target, now);
                } catch (RuntimeException e) {
                    // The store could not answer; the last reading stands and the next answer asks again.
                } finally {
                    target.refreshing.set(false);
                }
            });
            r = q.reading;
        }
        if (r == null || r.remaining.isEmpty()) {
            return;
        }
        headers.set(HeaderNames.RATELIMIT_POLICY, r.policy);
        headers.set(HeaderNames.RATELIMIT, r.remaining);
        if (r.requests != null) {
            headers.set(HeaderNames.LIMIT_REQUESTS, r.requests[0]);
            headers.set(HeaderNames.REMAINING_REQUESTS, r.requests[1]);
            headers.set(HeaderNames.RESET_REQUESTS, r.requests[2]);
        }
        if (r.tokens != null) {
            headers.set(HeaderNames.LIMIT_TOKENS, r.tokens[0]);
            headers.set(HeaderNames.REMAINING_TOKENS, r.tokens[1]);
            headers.set(HeaderNames.RESET_TOKENS, r.tokens[2]);
        }
    }

    /** A key's scopes under one configuration, and the latest reading of their buckets. */
    private static final class KeyQuota {
        final GovernorConfig config;
        final List<Scope> scopes;
        final AtomicBoolean refreshing = new AtomicBoolean();
        volatile Reading reading;

        KeyQuota(GovernorConfig config, List<Scope> scopes) {
            this.config = config;
            this.scopes = scopes;
        }
    }

    /**
     * The header values of one reading; {@code requests} and {@code tokens} hold the limit, the
     * remaining and the reset of the tightest such limit, or are null when there is none.
     */
    private record Reading(AsciiString policy, AsciiString remaining, AsciiString[] requests, AsciiString[] tokens,
            long takenAtNanos) {}

    private Reading read(KeyQuota q, long now) {
        StringBuilder policy = new StringBuilder();
        StringBuilder remaining = new StringBuilder();
        Tightest requests = new Tightest();
        Tightest tokens = new Tightest();
        for (Scope scope : q.scopes) {
            Optional<BucketState> state = governor.bucket(scope);
            if (state.isPresent()) {
                add(scope, state.get(), q.config.settings(scope).limits(), policy, remaining, requests, tokens);
            }
        }
        // Built once per reading as ASCII bytes: every answer until the next reading writes them as they are.
        return new Reading(new AsciiString(policy), new AsciiString(remaining), requests.values(), tokens.values(), now);
    }

    private static void add(Scope scope, BucketState state, Limits limits, StringBuilder policy, StringBuilder remaining,
            Tightest requests, Tightest tokens) {
        for (BucketState.DimensionState d : state.dimensions()) {
            Optional<Limit> limit = limits.get(d.dimension());
            if (limit.isEmpty()) {
                continue;
            }
            String name = scope.level().prefix() + "-" + d.dimension().limiterName();
            long r = Math.max(0, (long) Math.floor(d.available()));
            long resetMillis = 0;
            sep(policy).append('"').append(name).append("\";q=");
            switch (d.dimension().kind()) {
                case RATE -> {
                    long amount = limit.get().amount();
                    policy.append(amount).append(";w=60");
                    double perMilli = amount / 60_000.0 * d.rateFactor();
                    double missing = d.capacity() * d.rateFactor() - d.available();
                    resetMillis = missing <= 0 || perMilli <= 0 ? 0 : (long) Math.ceil(missing / perMilli);
                    resetMillis += d.pausedForNanos() / 1_000_000;
                    if (d.dimension() == Dimension.REQUESTS) {
                        requests.offer(amount, r, resetMillis);
                    } else if (d.dimension() == Dimension.TOTAL_TOKENS || d.dimension() == Dimension.INPUT_TOKENS) {
                        tokens.offer(amount, r, resetMillis);
                    }
                }
                case GAUGE -> policy.append(d.capacity()).append(";qu=\"concurrent-requests\"");
                case DAILY -> policy.append(limit.get().amount()).append(";w=86400");
            }
            sep(remaining).append('"').append(name).append("\";r=").append(r);
            if (resetMillis > 0) {
                remaining.append(";t=").append((resetMillis + 999) / 1000);
            }
        }
    }

    private static StringBuilder sep(StringBuilder sb) {
        return sb.isEmpty() ? sb : sb.append(", ");
    }

    /** The limit with the least remaining, for the single-valued x-ratelimit-* headers. */
    private static final class Tightest {
        long limit = -1;
        long remaining;
        long resetMillis;

        void offer(long l, long r, long reset) {
            if (limit < 0 || r < remaining) {
                limit = l;
                remaining = r;
                resetMillis = reset;
            }
        }

        /** Limit, remaining and reset as header values; null when nothing was offered. */
        AsciiString[] values() {
            return limit < 0 ? null : new AsciiString[] {AsciiString.of(Long.toString(limit)),
                    AsciiString.of(Long.toString(remaining)), AsciiString.of(goDuration(resetMillis))};
        }
    }

    /** A Go-style duration as OpenAI writes its resets: {@code 12ms}, {@code 1.5s}, {@code 6m0s}. */
    static String goDuration(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        long h = millis / 3_600_000;
        long m = millis / 60_000 % 60;
        long s = millis / 1000 % 60;
        long ms = millis % 1000;
        StringBuilder sb = new StringBuilder();
        if (h > 0) {
            sb.append(h).append('h');
        }
        if (h > 0 || m > 0) {
            sb.append(m).append('m');
        }
        sb.append(s);
        if (ms > 0) {
            // Milliseconds as a decimal fraction without trailing zeros: 500 -> .5, 50 -> .05, 5 -> .005.
            sb.append('.');
            for (long digit = 100; digit > 0 && ms > 0; digit /= 10) {
                sb.append((char) ('0' + ms / digit));
                ms %= digit;
            }
        }
        return sb.append('s').toString();
    }
}
