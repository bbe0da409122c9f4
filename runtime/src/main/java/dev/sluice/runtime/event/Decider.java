package dev.sluice.runtime.event;

import dev.sluice.governor.Explanation;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What decided a local refusal or a wait: the limiter (dimension) and the bucket's scope, the
 * provider window when a short window rather than the minute bound, whether a pause or a class
 * reserve was part of it, and the wait the governor predicted against the wait allowed.
 *
 * @param limiter the dimension, {@code input_tpm}, or {@code none}
 * @param scope the bucket, {@code tenant:acme}, {@code deployment:openai-east}, or {@code gateway}
 * @param window the window that bound, such as {@code 1s}; empty for the limit's own period
 * @param paused a pause (cooldown) on the deciding bucket was part of the wait
 * @param reserve capacity held back for a higher class was part of the wait
 * @param predictedWaitNanos the queue wait predicted at the rate in force, when computed
 * @param serviceNanos the call's own expected duration, when known
 * @param budgetNanos the longest the request could wait (class budget cut by the deadline), when judged
 * @param deadlineBound whether the request's deadline, not its class's wait budget, set {@code budgetNanos}
 */
public record Decider(String limiter, String scope, Optional<String> window, boolean paused, boolean reserve,
        OptionalLong predictedWaitNanos, OptionalLong serviceNanos, OptionalLong budgetNanos, boolean deadlineBound) {

    public Decider {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(predictedWaitNanos, "predictedWaitNanos");
        Objects.requireNonNull(serviceNanos, "serviceNanos");
        Objects.requireNonNull(budgetNanos, "budgetNanos");
    }

    /** The limiter and scope alone. */
    public Decider(String limiter, String scope, Optional<String> window) {
        this(limiter, scope, window, false, false, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), false);
    }

    /** What set the wait allowed: {@code deadline} or {@code class}; empty when no budget was judged. */
    public Optional<String> boundBy() {
        return budgetNanos.isEmpty() ? Optional.empty() : Optional.of(deadlineBound ? "deadline" : "class");
    }

    /** The governor's explanation as the record keeps it. */
    public static Decider of(Explanation e) {
        return new Decider(e.dimension().map(Dimension::limiterName).orElse("none"),
                e.scope().map(Scope::key).orElse("gateway"), e.window(), e.paused(), e.reserve(),
                known(e.predictedWaitNanos()), e.serviceNanos() > 0 ? OptionalLong.of(e.serviceNanos())
                        : OptionalLong.empty(),
                e.budgetNanos() == Explanation.UNKNOWN || e.budgetNanos() == Long.MAX_VALUE ? OptionalLong.empty()
                        : OptionalLong.of(e.budgetNanos()), e.deadlineBound());
    }

    private static OptionalLong known(long v) {
        return v == Explanation.UNKNOWN ? OptionalLong.empty() : OptionalLong.of(v);
    }
}
