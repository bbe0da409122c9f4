package dev.sluice.mock.limits;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A family of provider behaviours drawn from a seed, so that a simulator or a mock is not built on
 * the same assumptions as the governor it tests. Member 0 is {@link ProviderBehaviour#REFERENCE};
 * member {@code k > 0} of a seed is drawn, for one deployment, from {@code (seed, k, deployment)}
 * alone, so every draw can be reproduced. Each member draws, in this order:
 *
 * <ul>
 *   <li>one window kind for the deployment, among those its provider's facts allow;
 *   <li>for each rate limit, a short window log-uniform in 0.1 to 10 s and a burst factor uniform
 *       in 1 to 2 ({@link Enforcement});
 *   <li>prompt counting: a factor uniform in 0.8 to 1.2 and 0 to 30 tokens of framing per request;
 *   <li>what Retry-After means, among the meanings the provider's facts allow;
 *   <li>rate-limit headers present, absent or stale by 1 to 10 s (absent where the provider sends none);
 *   <li>with probability 1/3, a warm-up from 10% to 50% of the limits, doubling every 20 to 90 s;
 *   <li>with probability 1/3, an unannounced cut to 50% to 90% of the limits, starting between 20%
 *       and 60% of the horizon and lasting 10% to 30% of it.
 * </ul>
 */
public final class ProviderFamily {

    private ProviderFamily() {}

    /**
     * What a provider documents, and so what its members may not contradict.
     *
     * @param windowKinds the window kinds it may enforce with
     * @param retryAfter the meanings its announced waits may have ({@code ABSENT} only where it
     *     documents 429s without one)
     * @param headers whether it sends rate-limit headers at all
     */
    public record Facts(Set<WindowKind> windowKinds, Set<RetryAfterMeaning> retryAfter, boolean headers) {
        public Facts {
            windowKinds = Set.copyOf(windowKinds);
            retryAfter = Set.copyOf(retryAfter);
            if (windowKinds.isEmpty() || retryAfter.isEmpty()) {
                throw new IllegalArgumentException("facts: at least one window kind and one retry-after meaning");
            }
        }

        /** Anything goes. */
        public static final Facts ANY = new Facts(EnumSet.allOf(WindowKind.class),
                EnumSet.allOf(RetryAfterMeaning.class), true);
    }

    /**
     * Member {@code index} of the family for {@code seed} and {@code deployment}.
     *
     * @param horizon the length of the run, within which unannounced changes fall
     */
    public static ProviderBehaviour member(long seed, int index, String deployment, Duration horizon, Facts facts) {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(horizon, "horizon");
        Objects.requireNonNull(facts, "facts");
        if (index < 0) {
            throw new IllegalArgumentException("index: " + index + " (expected: >= 0)");
        }
        if (index == 0) {
            return ProviderBehaviour.REFERENCE;
        }
        SplittableRandom r = new SplittableRandom(mix(seed, index, deployment));
        List<WindowKind> kinds = EnumSet.copyOf(facts.windowKinds()).stream().toList();
        WindowKind kind = kinds.get(r.nextInt(kinds.size()));
        ProviderBehaviour b = ProviderBehaviour.REFERENCE.withName("m" + index);
        for (LimitKind limit : ProviderBehaviour.RATE_LIMITS) {
            double seconds = Math.exp(uniform(r, Math.log(0.1), Math.log(10)));
            double burst = Math.round(uniform(r, 1, 2) * 100) / 100.0;
            b = b.withEnforcement(limit, new Enforcement(kind, Duration.ofMillis(Math.round(seconds * 1000)), burst));
        }
        double factor = Math.round(uniform(r, 0.8, 1.2) * 1000) / 1000.0;
        b = b.withCounting(new TokenCounting(factor, r.nextInt(31)));
        List<RetryAfterMeaning> meanings = EnumSet.copyOf(facts.retryAfter()).stream().toList();
        b = b.withRetryAfter(meanings.get(r.nextInt(meanings.size())));
        HeaderReport header = HeaderReport.values()[r.nextInt(HeaderReport.values().length)];
        Duration staleness = Duration.ofMillis(1_000 + r.nextInt(9_001));
        b = facts.headers() ? b.withHeaders(header, header == HeaderReport.STALE ? staleness : Duration.ZERO)
                : b.withHeaders(HeaderReport.ABSENT, Duration.ZERO);
        boolean warm = r.nextDouble() < 1.0 / 3;
        double initial = Math.round(uniform(r, 0.1, 0.5) * 100) / 100.0;
        Duration doubling = Duration.ofSeconds(20 + r.nextInt(71));
        b = b.withWarmUp(warm ? Optional.of(new WarmUp(initial, doubling)) : Optional.empty());
        boolean cut = r.nextDouble() < 1.0 / 3;
        long h = horizon.toMillis();
        long at = Math.round(h * uniform(r, 0.2, 0.6));
        long length = Math.max(1, Math.round(h * uniform(r, 0.1, 0.3)));
        double by = Math.round(uniform(r, 0.5, 0.9) * 100) / 100.0;
        b = b.withChanges(cut && h > 0
                ? List.of(new LimitChange(Duration.ofMillis(at), Duration.ofMillis(at + length), by)) : List.of());
        return b;
    }

    private static double uniform(SplittableRandom r, double lo, double hi) {
        return lo + (hi - lo) * r.nextDouble();
    }

    /** A 64-bit mix of the three keys (String.hashCode is specified, so stable across runs). */
    private static long mix(long seed, int index, String deployment) {
        long x = seed * 0x9E3779B97F4A7C15L + index;
        x = (x ^ (x >>> 31)) * 0xBF58476D1CE4E5B9L + deployment.hashCode();
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
