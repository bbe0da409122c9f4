package dev.sluice.runtime.explain;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.Decider;
import dev.sluice.runtime.event.RequestEvent;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * A request's decision told plainly: a one-line reason for a list of recent requests and one
 * sentence for the explain view, both from the {@link RequestEvent} alone (the same words whether
 * the event came from memory or from the ledger). Pure: no clock, no state.
 */
public final class RequestExplanation {

    private RequestExplanation() {}

    /** Which recent requests a list asks for. */
    public enum Filter {
        /** Every request. */
        ALL(e -> true),
        /** Refused by Sluice (its answer carried a {@code gateway_decision}) or by the provider at the end. */
        REJECTED(e -> e.gatewayDecision().isPresent() || e.decision().equals("rejected")),
        /** Made to wait in a class queue before its first attempt. */
        SLOW(e -> e.queueWaitNanos() > 0);

        private final Predicate<RequestEvent> accepts;

        Filter(Predicate<RequestEvent> accepts) {
            this.accepts = accepts;
        }

        public boolean accepts(RequestEvent e) {
            return accepts.test(e);
        }

        /** The lower-case name used on the wire. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The filter named {@code s} on the wire, if any. */
        public static Optional<Filter> byWireName(String s) {
            for (Filter f : values()) {
                if (f.wireName().equals(s)) {
                    return Optional.of(f);
                }
            }
            return Optional.empty();
        }
    }

    /** How many times the gateway tried again on the same deployment (a provider 429 it retried itself). */
    public static int retries(RequestEvent e) {
        int n = 0;
        for (AttemptEvent a : e.attemptEvents()) {
            if (a.retryDelayMillis().isPresent()) {
                n++;
            }
        }
        return n;
    }

    /** Whether an attempt ran on a deployment other than the first choice. */
    public static boolean fellBack(RequestEvent e) {
        return e.fallback().isPresent();
    }

    /** One line: what happened and, when a limiter decided, where ({@code refused: tenant:acme rpm}). */
    public static String reason(RequestEvent e) {
        Optional<String> at = e.decider().map(d -> d.scope() + " " + d.limiter() + d.window().map(w -> " (" + w + ")")
                .orElse(""));
        if (e.gatewayDecision().isPresent()) {
            String what = switch (e.gatewayDecision().get()) {
                case "queued_then_timed_out" -> "waited " + millis(e.queueWaitNanos()) + " ms, then timed out";
                case "shed_under_pressure" -> "shed under pressure";
                case "paused" -> "paused";
                case "budget_exhausted" -> "daily cap spent";
                case "admitted_then_provider_rejected" -> "admitted, then refused by the provider";
                default -> "refused";
            };
            return what + at.map(s -> ": " + s).orElse("") + e.code().map(c -> " [" + c + "]").orElse("");
        }
        if (e.status() == RequestEvent.CLIENT_CLOSED_REQUEST) {
            return "client went away" + (e.queueWaitNanos() > 0 ? " after waiting " + millis(e.queueWaitNanos()) + " ms"
                    : "");
        }
        StringBuilder b = new StringBuilder();
        b.append(e.status() < 400 ? "answered" : "failed " + e.status() + e.code().map(c -> " [" + c + "]").orElse(""));
        if (e.queueWaitNanos() > 0) {
            b.append(" after waiting ").append(millis(e.queueWaitNanos())).append(" ms");
            at.ifPresent(s -> b.append(" on ").append(s));
        }
        int retries = retries(e);
        if (retries > 0) {
            b.append(", ").append(retries).append(retries == 1 ? " retry" : " retries");
        }
        e.fallback().ifPresent(f -> b.append(", fell back (").append(f).append(')'));
        return b.toString();
    }

    /** The decision in one plain sentence, for someone who has not read the configuration. */
    public static String sentence(RequestEvent e) {
        StringBuilder b = new StringBuilder(200);
        String cls = e.trafficClass().map(c -> c + " ").orElse("");
        String who = e.caller().map(c -> " from " + c.team() + " (key " + c.apiKeyId() + ")")
                .orElse("");
        b.append("This ").append(cls).append("request").append(who);
        e.profile().ifPresent(p -> b.append(" for ").append(p));
        Optional<Decider> d = e.decider();
        String gd = e.gatewayDecision().orElse("");
        if (e.decision().equals("none") && gd.isEmpty()) {
            b.append(" ended before admission with status ").append(e.status())
                    .append(e.code().map(c -> " (" + c + ")").orElse("")).append('.');
            return b.toString();
        }
        switch (gd) {
            case "paused" -> b.append(" was refused because ").append(d.map(Decider::scope).orElse("its scope"))
                    .append(" is paused by an operator.");
            case "shed_under_pressure" -> b.append(" was shed because ").append(e.deployment().orElse("its deployment"))
                    .append(" is under pressure").append(e.mode().map(m -> " (mode " + m + ")").orElse("")).append('.');
            case "budget_exhausted" -> b.append(" was refused because ").append(d.map(Decider::scope).orElse("a scope"))
                    .append(" has spent its daily ").append(d.map(Decider::limiter).orElse("cap")).append('.');
            case "rejected_locally", "queued_then_timed_out" -> {
                b.append(gd.equals("rejected_locally") ? " was refused at once because " : " waited "
                        + millis(e.queueWaitNanos()) + " ms and was then refused because ");
                b.append(shortOf(d));
                d.ifPresent(x -> wait(b, x));
                b.append('.');
            }
            case "admitted_then_provider_rejected" -> {
                b.append(" was admitted");
                if (e.queueWaitNanos() > 0) {
                    b.append(" after waiting ").append(millis(e.queueWaitNanos())).append(" ms");
                }
                b.append(", then the provider refused it");
                lastProviderRefusal(e).ifPresent(a -> b.append(" (").append(a.status()).append(' ').append(a.reason())
                        .append(a.limitHit().map(l -> ", " + l).orElse("")).append(')'));
                b.append(": Sluice's estimate of the provider's limit was too high.");
            }
            default -> {
                if (e.queueWaitNanos() > 0) {
                    b.append(" waited ").append(millis(e.queueWaitNanos())).append(" ms because ").append(shortOf(d));
                    d.ifPresent(x -> wait(b, x));
                    b.append(", then ");
                } else {
                    b.append(" was admitted at once, then ");
                }
                if (e.status() == RequestEvent.CLIENT_CLOSED_REQUEST) {
                    b.append("its client went away.");
                } else if (e.status() < 400) {
                    b.append("answered ").append(e.status()).append(" by ").append(e.deployment().orElse("the provider"))
                            .append('.');
                } else {
                    b.append("failed with status ").append(e.status()).append(e.code().map(c -> " (" + c + ")").orElse(""))
                            .append('.');
                }
            }
        }
        int retries = retries(e);
        if (retries > 0) {
            b.append(" The gateway retried ").append(retries == 1 ? "once" : retries + " times")
                    .append(" after a provider 429.");
        }
        e.fallback().ifPresent(f -> b.append(" It ran on ").append(e.deployment().orElse("another deployment"))
                .append(" instead of the first choice (").append(f).append(")."));
        if (e.brownout()) {
            b.append(" Brownout trimmed it.");
        }
        if (e.borrowed()) {
            b.append(" It ran on capacity borrowed beyond its tenant's guaranteed share.");
        }
        if (e.usageReported() && e.attempts() > 0 && e.estimate().input() > 0) {
            b.append(" Estimated ").append(e.estimate().input()).append(" input and ").append(e.estimate().output())
                    .append(" output tokens; the provider reported ").append(e.usage().input()).append(" and ")
                    .append(e.usage().output()).append('.');
        }
        return b.toString();
    }

    private static String shortOf(Optional<Decider> d) {
        if (d.isEmpty()) {
            return "capacity was short";
        }
        Decider x = d.get();
        StringBuilder b = new StringBuilder();
        b.append(x.scope()).append(" had too little ").append(x.limiter());
        x.window().ifPresent(w -> b.append(" in its ").append(w).append(" window"));
        if (x.paused()) {
            b.append(" while paused after a provider refusal");
        }
        if (x.reserve()) {
            b.append(", part of it held back for a higher class");
        }
        return b.toString();
    }

    private static void wait(StringBuilder b, Decider x) {
        OptionalLong predicted = x.predictedWaitNanos();
        OptionalLong budget = x.budgetNanos();
        if (predicted.isPresent() && budget.isPresent()) {
            b.append(" (a wait of ").append(millis(predicted.getAsLong())).append(" ms predicted, ")
                    .append(millis(budget.getAsLong())).append(" ms allowed by its ")
                    .append(x.deadlineBound() ? "deadline" : "class").append(')');
        } else if (predicted.isPresent()) {
            b.append(" (a wait of ").append(millis(predicted.getAsLong())).append(" ms predicted)");
        }
    }

    private static Optional<AttemptEvent> lastProviderRefusal(RequestEvent e) {
        AttemptEvent last = null;
        for (AttemptEvent a : e.attemptEvents()) {
            if (a.result() == AttemptResult.THROTTLED || a.result() == AttemptResult.REFUSED) {
                last = a;
            }
        }
        return Optional.ofNullable(last);
    }

    static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
