package dev.sluice.adapt;

import dev.sluice.limits.Dimension;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * How a provider refusal that names a quota shared above one deployment (a provider scope's
 * bucket) is applied to that bucket: every deployment of the scope would meet the same refusal,
 * so the shared bucket is paused, not only the deployment that heard it. Pure.
 */
public final class SharedQuotaPolicy {

    private SharedQuotaPolicy() {}

    /**
     * How long the shared bucket pauses after {@code s}: the provider's hint, at most
     * {@code rateWindowNanos} (the longest documented short window, as a deployment's own rate
     * pause), and the cooldown floor without a hint. 0 for a signal that is no such refusal.
     */
    public static long pauseNanos(ProviderSignal s, long rateWindowNanos, CooldownConfig c) {
        if (s.status() != SignalStatus.RATE_LIMITED || Outcome.of(s) == Outcome.IGNORED) {
            return 0;
        }
        long asked = s.retryAfterMillis().isPresent() ? s.retryAfterMillis().getAsLong() * 1_000_000L
                : c.floor().toNanos();
        return Math.max(1, Math.min(asked, rateWindowNanos));
    }

    /**
     * Which of the shared bucket's dimensions pause: the one the refusal names, when the bucket
     * limits it; otherwise every rate it limits ({@code limited} says which it does).
     */
    public static List<Dimension> dimensions(ProviderSignal s, Predicate<Dimension> limited) {
        Optional<Dimension> named = s.limitHit().flatMap(Outcome::dimensionOf).filter(limited);
        if (named.isPresent()) {
            return List.of(named.get());
        }
        List<Dimension> out = new ArrayList<>();
        for (Dimension d : Dimension.values()) {
            if (d.kind() == Dimension.Kind.RATE && limited.test(d)) {
                out.add(d);
            }
        }
        return out;
    }
}
