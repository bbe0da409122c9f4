package dev.sluice.runtime.control;

import dev.sluice.governor.GatewayDecision;
import dev.sluice.governor.Rejection;
import dev.sluice.governor.RequestPath;
import dev.sluice.limits.Scope;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The scopes operators paused, read on every admission. Empty most of the time, so the check is one
 * {@code isEmpty} then; otherwise one map lookup per scope of the path. Thread-safe.
 */
public final class Pauses {

    private final Map<String, Pause> byScope = new ConcurrentHashMap<>();

    /** Pauses {@code p.scope()}, replacing an earlier pause of it; the one before, if any. */
    public Optional<Pause> put(Pause p) {
        return Optional.ofNullable(byScope.put(p.scope().key(), p));
    }

    /** Lifts the pause of {@code scope}; the pause lifted, if there was one. */
    public Optional<Pause> remove(Scope scope) {
        return Optional.ofNullable(byScope.remove(scope.key()));
    }

    /** The pause of {@code scope} itself, if one holds at {@code nowMillis}. */
    public Optional<Pause> of(Scope scope, long nowMillis) {
        Pause p = byScope.get(scope.key());
        return p != null && p.holdsAt(nowMillis) ? Optional.of(p) : Optional.empty();
    }

    /** The first pause that holds on {@code path} at {@code nowMillis}, outermost scope first. */
    public Optional<Pause> applying(RequestPath path, long nowMillis) {
        return applying(path, List.of(), nowMillis);
    }

    /**
     * The first pause that holds on {@code path} or on the shared provider scopes of its deployment
     * ({@code shared}, checked just before the deployment) at {@code nowMillis}.
     */
    public Optional<Pause> applying(RequestPath path, List<Scope> shared, long nowMillis) {
        if (byScope.isEmpty()) {
            return Optional.empty();
        }
        for (Scope s : path.scopes()) {
            if (s.level() == dev.sluice.limits.ScopeLevel.PROVIDER_DEPLOYMENT) {
                for (Scope above : shared) {
                    Optional<Pause> p = of(above, nowMillis);
                    if (p.isPresent()) {
                        return p;
                    }
                }
            }
            Optional<Pause> p = of(s, nowMillis);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    /**
     * What a request crossing {@code p} is told: {@code gateway_decision} paused, not retryable,
     * {@code <level>_paused}, the reason and when it lifts.
     */
    public static Rejection rejection(Pause p, long nowMillis) {
        String level = p.scope().level().prefix();
        String until = p.until().map(u -> "until " + u + " (" + Math.max(1, (u.toEpochMilli() - nowMillis + 999) / 1000)
                + " s)").orElse("until an operator resumes it");
        long retry = p.until().map(u -> u.toEpochMilli() - nowMillis).orElse(1L);
        return new Rejection(GatewayDecision.PAUSED, level + "_paused", Optional.empty(), Optional.of(p.scope()), retry,
                false, "The " + describe(p.scope()) + " is paused by an operator (" + p.reason() + ") " + until
                        + "; retrying will fail until then.");
    }

    private static String describe(Scope s) {
        return switch (s.level()) {
            case ORGANISATION -> "organisation " + s.id();
            case TENANT -> "tenant " + s.id();
            case TEAM -> "team " + s.id();
            case API_KEY -> "API key " + s.id();
            case MODEL_PROFILE -> "model profile " + s.id();
            case PROVIDER_SCOPE -> "provider scope " + s.id();
            case PROVIDER_DEPLOYMENT -> "deployment " + s.id();
        };
    }

    /** The pauses that hold at {@code nowMillis}, by scope key; expired ones are dropped. */
    public List<Pause> list(long nowMillis) {
        byScope.values().removeIf(p -> !p.holdsAt(nowMillis));
        List<Pause> out = new ArrayList<>(byScope.values());
        out.sort(Comparator.comparing(p -> p.scope().key()));
        return out;
    }
}
