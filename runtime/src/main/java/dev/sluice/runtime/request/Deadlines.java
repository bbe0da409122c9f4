package dev.sluice.runtime.request;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.TrafficClass;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A request's class and deadline, from its key's defaults and the headers it sent; the tightest
 * deadline wins and the class is never above what the key allows. Pure.
 *
 * <p>Deadlines come from the class ({@code classes.<class>.deadline}), the key ({@code deadline:}),
 * {@value #DEADLINE_HEADER} (milliseconds), and
 * {@value #SDK_TIMEOUT_HEADER}, the timeout in seconds that the official OpenAI and Anthropic SDKs
 * send with every call: a request that the client will have given up on is worth nothing to it.
 */
public final class Deadlines {

    /** Asks for a traffic class. */
    public static final String CLASS_HEADER = "x-sluice-class";
    /** Asks for a deadline, in milliseconds from arrival. */
    public static final String DEADLINE_HEADER = "x-sluice-deadline-ms";
    /** The Stainless-generated SDKs' own timeout for the call, in seconds. */
    public static final String SDK_TIMEOUT_HEADER = "x-stainless-timeout";

    private Deadlines() {}

    /** What the headers and key say. */
    public sealed interface Resolved permits Valid, Invalid {}

    /**
     * @param trafficClass the class to serve it as
     * @param deadlineMillis milliseconds from arrival; {@link Long#MAX_VALUE} for none
     */
    public record Valid(TrafficClass trafficClass, long deadlineMillis) implements Resolved {
        public Valid {
            Objects.requireNonNull(trafficClass, "trafficClass");
        }

        /** The deadline on a clock that reads {@code nowNanos}; {@link AdmissionRequest#NO_DEADLINE} for none. */
        public long deadlineNanosFrom(long nowNanos) {
            if (deadlineMillis == Long.MAX_VALUE) {
                return AdmissionRequest.NO_DEADLINE;
            }
            long d = nowNanos + Math.multiplyExact(Math.min(deadlineMillis, Long.MAX_VALUE / 2_000_000), 1_000_000L);
            return Math.min(d, AdmissionRequest.NO_DEADLINE - 1);
        }
    }

    /** A header that cannot be read: answer 400 with {@code code} naming {@code header}. */
    public record Invalid(String header, String code, String message) implements Resolved {}

    /**
     * @param keyClass the key's default class
     * @param maxClass the highest class the key may ask for
     * @param askedClass {@value #CLASS_HEADER}, or null
     * @param keyDeadline the key's default deadline
     * @param askedDeadlineMillis {@value #DEADLINE_HEADER}, or null
     * @param sdkTimeoutSeconds {@value #SDK_TIMEOUT_HEADER}, or null
     */
    public static Resolved resolve(TrafficClass keyClass, TrafficClass maxClass, String askedClass,
            Optional<Duration> keyDeadline, String askedDeadlineMillis, String sdkTimeoutSeconds) {
        return resolve(keyClass, maxClass, askedClass, keyDeadline, askedDeadlineMillis, sdkTimeoutSeconds, Map.of());
    }

    /**
     * As {@link #resolve(TrafficClass, TrafficClass, String, Optional, String, String)}, with the
     * deadline of the class it is served as ({@link ClassPolicy#deadline}) among those the tightest is taken from.
     *
     * @param classes the configured class policies
     */
    public static Resolved resolve(TrafficClass keyClass, TrafficClass maxClass, String askedClass,
            Optional<Duration> keyDeadline, String askedDeadlineMillis, String sdkTimeoutSeconds,
            Map<TrafficClass, ClassPolicy> classes) {
        TrafficClass c = keyClass;
        if (askedClass != null) {
            Optional<TrafficClass> asked = TrafficClass.byWireName(askedClass.strip());
            if (asked.isEmpty()) {
                return new Invalid(CLASS_HEADER, "invalid_class", CLASS_HEADER + ": '" + askedClass
                        + "' is not a traffic class (critical, interactive, batch, eval, background).");
            }
            c = asked.get().outranks(maxClass) ? maxClass : asked.get();
        }
        long deadline = keyDeadline.map(Duration::toMillis).orElse(Long.MAX_VALUE);
        ClassPolicy policy = classes.get(c);
        if (policy != null && policy.deadline().isPresent()) {
            deadline = Math.min(deadline, policy.deadline().get().toMillis());
        }
        if (askedDeadlineMillis != null) {
            long v = positiveLong(askedDeadlineMillis);
            if (v <= 0) {
                return new Invalid(DEADLINE_HEADER, "invalid_deadline", DEADLINE_HEADER + ": '" + askedDeadlineMillis
                        + "' is not a positive number of milliseconds.");
            }
            deadline = Math.min(deadline, v);
        }
        if (sdkTimeoutSeconds != null) {
            long v = secondsToMillis(sdkTimeoutSeconds);
            if (v <= 0) {
                return new Invalid(SDK_TIMEOUT_HEADER, "invalid_timeout", SDK_TIMEOUT_HEADER + ": '" + sdkTimeoutSeconds
                        + "' is not a positive number of seconds.");
            }
            deadline = Math.min(deadline, v);
        }
        return new Valid(c, deadline);
    }

    private static long positiveLong(String s) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whole or decimal seconds ({@code 600}, {@code 2.5}) in milliseconds, rounded up; -1 when unreadable. */
    private static long secondsToMillis(String s) {
        try {
            BigDecimal seconds = new BigDecimal(s.strip());
            if (seconds.signum() <= 0 || seconds.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 1000)) > 0) {
                return -1;
            }
            return seconds.movePointRight(3).setScale(0, java.math.RoundingMode.CEILING).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            return -1;
        }
    }
}
