package dev.sluice.gateway.http;

import dev.sluice.gateway.config.KeyConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.BucketState;
import io.vertx.core.MultiMap;
import java.util.Optional;

/**
 * Tells a caller its own remaining quota (its key's and its tenant's buckets, never the shared
 * provider deployment), in the IETF {@code RateLimit-Policy}/{@code RateLimit} fields and in the
 * OpenAI-style {@code x-ratelimit-*} headers existing clients already pace themselves by. Reads
 * bucket state only; it never changes it.
 */
public final class CallerQuota {

    private final QuotaGovernor governor;

    public CallerQuota(QuotaGovernor governor) {
        this.governor = governor;
    }

    /** Adds the headers for {@code key}; adds nothing when neither its key nor its tenant has limits. */
    public void write(MultiMap headers, KeyConfig key) {
        StringBuilder policy = new StringBuilder();
        StringBuilder remaining = new StringBuilder();
        Tightest requests = new Tightest();
        Tightest tokens = new Tightest();
        add(Scope.of(ScopeLevel.API_KEY, key.id()), policy, remaining, requests, tokens);
        add(Scope.of(ScopeLevel.TENANT, key.tenant()), policy, remaining, requests, tokens);
        if (policy.isEmpty()) {
            return;
        }
        headers.set("RateLimit-Policy", policy.toString());
        headers.set("RateLimit", remaining.toString());
        requests.write(headers, "requests");
        tokens.write(headers, "tokens");
    }

    private void add(Scope scope, StringBuilder policy, StringBuilder remaining, Tightest requests, Tightest tokens) {
        Optional<BucketState> state = governor.bucket(scope);
        if (state.isEmpty()) {
            return;
        }
        var limits = governor.config().settings(scope).limits();
        for (BucketState.DimensionState d : state.get().dimensions()) {
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

        void write(MultiMap headers, String what) {
            if (limit < 0) {
                return;
            }
            headers.set("x-ratelimit-limit-" + what, Long.toString(limit));
            headers.set("x-ratelimit-remaining-" + what, Long.toString(remaining));
            headers.set("x-ratelimit-reset-" + what, goDuration(resetMillis));
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
            String frac = String.format(java.util.Locale.ROOT, "%03d", ms);
            sb.append('.').append(frac.replaceAll("0+$", ""));
        }
        return sb.append('s').toString();
    }
}
