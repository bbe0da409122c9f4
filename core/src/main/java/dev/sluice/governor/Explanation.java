package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import java.util.Objects;
import java.util.Optional;

/**
 * Why a request was refused or made to wait, in terms an operator can check against the
 * configuration: the bucket and dimension that decided, whether a pause or a class reserve was
 * part of it, and the wait the governor predicted against the wait the request was allowed.
 *
 * @param scope the bucket that decided, when one did
 * @param dimension the dimension that decided, when one did
 * @param window the provider window that bound, such as {@code 1s}; empty for the limit's own
 *     period (a minute for a rate, a day for a daily cap)
 * @param paused a pause (a cooldown after a provider refusal) on the deciding bucket was part of the wait
 * @param reserve capacity held back for a higher class was part of the wait
 * @param predictedWaitNanos the queue wait predicted at the rate in force; {@link #UNKNOWN} when it
 *     depends on requests in flight finishing, or was not needed
 * @param serviceNanos the call's own expected duration once sent (0 when not known)
 * @param budgetNanos the longest the request could wait: its class's {@code max_queue_wait}, cut by
 *     what its deadline leaves after the call's own duration; {@link #UNKNOWN} when not judged
 * @param deadlineBound whether the deadline, not the class's wait budget, set {@code budgetNanos}
 */
public record Explanation(Optional<Scope> scope, Optional<Dimension> dimension, Optional<String> window,
        boolean paused, boolean reserve, long predictedWaitNanos, long serviceNanos, long budgetNanos,
        boolean deadlineBound) {

    /** A wait or budget that was not computed. */
    public static final long UNKNOWN = -1;

    public Explanation {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(dimension, "dimension");
        Objects.requireNonNull(window, "window");
    }

    /** Only the bucket and dimension: a refusal no wait arithmetic was done for. */
    public static Explanation of(Optional<Scope> scope, Optional<Dimension> dimension, boolean paused) {
        return new Explanation(scope, dimension, Optional.empty(), paused, false, UNKNOWN, 0, UNKNOWN, false);
    }

    /**
     * One line for a header and a log: {@code scope=deployment:east dimension=rpm paused=false
     * reserve=false predicted_wait_ms=1200 service_ms=800 budget_ms=300 bound_by=class}; parts
     * not known are left out.
     */
    public String headerValue() {
        StringBuilder b = new StringBuilder(120);
        b.append("scope=").append(scope.map(Scope::key).orElse("gateway"));
        b.append(" dimension=").append(dimension.map(Dimension::limiterName).orElse("none"));
        window.ifPresent(w -> b.append(" window=").append(w));
        b.append(" paused=").append(paused);
        b.append(" reserve=").append(reserve);
        if (predictedWaitNanos != UNKNOWN) {
            b.append(" predicted_wait_ms=").append(Rejections.millis(predictedWaitNanos));
        }
        if (serviceNanos > 0) {
            b.append(" service_ms=").append(Rejections.millis(serviceNanos));
        }
        if (budgetNanos != UNKNOWN) {
            b.append(" budget_ms=").append(budgetNanos == Long.MAX_VALUE ? "none" : Long.toString(budgetNanos / 1_000_000));
            b.append(" bound_by=").append(deadlineBound ? "deadline" : "class");
        }
        return b.toString();
    }
}
