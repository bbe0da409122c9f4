package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.ReserveOutcome;
import java.util.Locale;
import java.util.Optional;

/** Builds the codes and sentences of local rejections, so every path words them the same way. */
final class Rejections {

    private Rejections() {}

    static Rejection tooLarge(ReserveOutcome.Short s) {
        String what = describe(s.dimension());
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, code(s, "too_large"), Optional.of(s.dimension()),
                Optional.of(s.scope()), 1, false,
                String.format(Locale.ROOT, "The request needs %d %s but %s can never hold more than %d; "
                        + "retrying cannot help, make the request smaller.", s.needed(), what, s.scope(), s.capacity()),
                Explanation.of(Optional.of(s.scope()), Optional.of(s.dimension()), false));
    }

    static Rejection dailyCapSpent(ReserveOutcome.Short s) {
        if (s.dimension().money()) {
            return budgetSpent(s);
        }
        return new Rejection(GatewayDecision.BUDGET_EXHAUSTED, code(s, "exhausted"), Optional.of(s.dimension()),
                Optional.of(s.scope()), millis(s.waitNanos()), false,
                String.format(Locale.ROOT, "%s has spent its %s for today (%d left, %d needed); it resets in %s.",
                        s.scope(), describe(s.dimension()), s.available(), s.needed(), human(s.waitNanos())),
                Explanation.of(Optional.of(s.scope()), Optional.of(s.dimension()), false));
    }

    /**
     * A money cap spent: {@code <level>_budget_exhausted}, in dollars, with the reset as the retry
     * hint; never retryable before it.
     */
    private static Rejection budgetSpent(ReserveOutcome.Short s) {
        return new Rejection(GatewayDecision.BUDGET_EXHAUSTED, s.scope().level().prefix() + "_budget_exhausted",
                Optional.of(s.dimension()), Optional.of(s.scope()), millis(s.waitNanos()), false,
                String.format(Locale.ROOT, "%s has spent its %s budget of %s (%s left, this request may cost up "
                        + "to %s); it resets in %s.", s.scope(), s.dimension() == Dimension.MONTHLY_COST ? "monthly" : "daily",
                        usd(s.capacity()), usd(Math.max(0, s.available())),
                        usd(s.needed()), human(s.waitNanos())),
                Explanation.of(Optional.of(s.scope()), Optional.of(s.dimension()), false));
    }

    /** Micro-dollars as dollars, to the micro-dollar without trailing zeros beyond the cents. */
    static String usd(long micros) {
        String exact = java.math.BigDecimal.valueOf(micros, 6).stripTrailingZeros().toPlainString();
        int dot = exact.indexOf('.');
        if (dot < 0) {
            return "$" + exact + ".00";
        }
        return "$" + (exact.length() - dot - 1 < 2 ? exact + "0" : exact);
    }

    static Rejection waitTooLong(ReserveOutcome.Short s, TrafficClass c, Explanation why) {
        return waitTooLong(s, c, why, "");
    }

    /**
     * As {@link #waitTooLong(ReserveOutcome.Short, TrafficClass, Explanation)}; when the shortfall
     * was the class reserve held back for {@code heldFor} (say {@code interactive}), the code ends
     * in {@code _reserved} and the sentence says what was held back and for whom.
     */
    static Rejection waitTooLong(ReserveOutcome.Short s, TrafficClass c, Explanation why, String heldFor) {
        long waitNanos = why.predictedWaitNanos();
        String when = s.waitKnown() ? "capacity returns in " + human(waitNanos) + paused(why)
                : "it depends on requests in flight finishing";
        boolean reserved = s.headroomBound();
        String shortOf = reserved
                ? String.format(Locale.ROOT, "%s has %d %s but %d of them are held back for %s requests (class reserve) "
                        + "and %d are needed", s.scope(), s.available(), describe(s.dimension()), s.heldBack(),
                        holders(heldFor), s.needed())
                : String.format(Locale.ROOT, "%s is short of %s (%d available, %d needed)", s.scope(),
                        describe(s.dimension()), s.available(), s.needed());
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, code(s, reserved ? "reserved" : "exhausted"),
                Optional.of(s.dimension()), Optional.of(s.scope()), millis(Math.max(0, waitNanos)), true,
                String.format(Locale.ROOT, "%s%s%s, longer than the %s request may wait (%s).", shortOf,
                        reserved ? "; " : " and ", when, c.wireName(), human(why.budgetNanos())), why);
    }

    /** Who a reserve is held back for, as words; "higher-class" when not told. */
    private static String holders(String heldFor) {
        return heldFor.isEmpty() ? "higher-class" : heldFor;
    }

    static Rejection queueFull(TrafficClass c, int length, long retryNanos, Explanation why) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, c.wireName() + "_queue_full", Optional.empty(),
                Optional.empty(), millis(retryNanos), true,
                String.format(Locale.ROOT, "The %s queue already holds %d waiting requests.", c.wireName(), length), why);
    }

    static Rejection queueBusy(TrafficClass c, Explanation why) {
        long waitNanos = why.predictedWaitNanos();
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, c.wireName() + "_queue_wait_exceeded",
                Optional.empty(), Optional.empty(), millis(waitNanos), true,
                String.format(Locale.ROOT, "Requests already waiting ahead would hold this one for about %s at the "
                        + "rate in force%s, longer than the %s request may wait (%s).", human(waitNanos), paused(why),
                        c.wireName(), human(why.budgetNanos())), why);
    }

    /**
     * The request cannot be answered before its deadline: the predicted wait (at the rate in force)
     * plus the call's own expected duration pass it. Retrying helps only when there was a wait; a
     * call that alone outlasts the deadline needs a longer deadline, not a retry.
     */
    static Rejection deadlineCannotBeMet(TrafficClass c, long toDeadlineNanos, Explanation why) {
        long wait = Math.max(0, why.predictedWaitNanos());
        String waitPart = wait == 0 ? "would " : String.format(Locale.ROOT, "would wait about %s%s%s and then ",
                human(wait), why.scope().map(s -> " for " + why.dimension().map(Rejections::describe).orElse("capacity")
                        + " on " + s).orElse(" behind requests queued ahead"), paused(why));
        String callPart = why.serviceNanos() <= 0 ? "be answered"
                : wait == 0 ? "take about " + human(why.serviceNanos()) + " to answer"
                : "take about " + human(why.serviceNanos()) + " to answer (" + human(QuotaGovernor.callRoom(why.serviceNanos()))
                        + " left for it, as calls vary)";
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, "deadline_cannot_be_met", why.dimension(), why.scope(),
                millis(wait), wait > 0,
                String.format(Locale.ROOT, "The %s request %s%s, but its deadline is in %s; it was answered now "
                        + "rather than left to time out.", c.wireName(), waitPart, callPart, human(toDeadlineNanos)),
                why);
    }

    static Rejection timedOut(Waiter w, long now, long retryNanos, boolean paused) {
        return timedOut(w, now, retryNanos, paused, "");
    }

    /** As {@link #timedOut(Waiter, long, long, boolean)}, saying when the reserve held back for {@code heldFor} held it back. */
    static Rejection timedOut(Waiter w, long now, long retryNanos, boolean paused, String heldFor) {
        TrafficClass c = w.request.trafficClass();
        Optional<ReserveOutcome.Short> last = w.lastShort;
        long waitedNanos = now - w.enqueuedAt;
        Explanation queued = w.explanation;
        Explanation why = new Explanation(last.map(ReserveOutcome.Short::scope).or(queued::scope),
                last.map(ReserveOutcome.Short::dimension).or(queued::dimension), queued.window(),
                paused || queued.paused(), queued.reserve() || last.filter(ReserveOutcome.Short::headroomBound).isPresent(),
                queued.predictedWaitNanos(), queued.serviceNanos(), queued.budgetNanos(), w.deadlineBound);
        String cause = last.map(s -> " for " + describe(s.dimension()) + " on " + s.scope()
                + (s.headroomBound() ? String.format(Locale.ROOT, " (%d of them held back for %s requests, class reserve)",
                        s.heldBack(), holders(heldFor)) : "")).orElse("");
        if (w.deadlineBound) {
            return new Rejection(GatewayDecision.QUEUED_THEN_TIMED_OUT, "deadline_cannot_be_met", why.dimension(),
                    why.scope(), millis(retryNanos), true, String.format(Locale.ROOT, "The %s request waited %s%s%s; "
                            + "its deadline no longer leaves the %s the call is expected to take, so it is answered "
                            + "now rather than left to time out.", c.wireName(), human(waitedNanos), cause,
                            paused(why), human(why.serviceNanos())), why);
        }
        return new Rejection(GatewayDecision.QUEUED_THEN_TIMED_OUT, "queue_wait_exceeded", why.dimension(),
                why.scope(), millis(retryNanos), true, String.format(Locale.ROOT,
                        "The %s request waited %s%s%s and its wait budget or deadline ran out.", c.wireName(),
                        human(waitedNanos), cause, paused(why)), why);
    }

    static Rejection deadlinePassed(TrafficClass c) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, "deadline_exceeded", Optional.empty(), Optional.empty(),
                1, false, "The " + c.wireName() + " request's deadline had already passed when it arrived.");
    }

    /** The outcome of a withdrawn waiter: its client has gone, so nobody reads it. */
    static Rejection withdrawn(TrafficClass c) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, "client_gone", Optional.empty(), Optional.empty(), 1,
                false, "The " + c.wireName() + " request's client left while it was queued.");
    }

    private static String paused(Explanation why) {
        return why.paused() ? " (the deployment is paused after a provider refusal)" : "";
    }

    private static String code(ReserveOutcome.Short s, String suffix) {
        ScopeLevel level = s.scope().level();
        return level.prefix() + "_" + s.dimension().limiterName() + "_" + suffix;
    }

    static String describe(Dimension d) {
        return switch (d) {
            case REQUESTS -> "requests per minute";
            case INPUT_TOKENS -> "input tokens per minute";
            case OUTPUT_TOKENS -> "output tokens per minute";
            case TOTAL_TOKENS -> "tokens per minute";
            case CONCURRENT_REQUESTS -> "concurrent requests";
            case CONCURRENT_STREAMS -> "concurrent streams";
            case DAILY_REQUESTS -> "daily requests";
            case DAILY_TOKENS -> "daily tokens";
            case DAILY_COST -> "daily budget (micro-dollars)";
            case MONTHLY_COST -> "monthly budget (micro-dollars)";
        };
    }

    static long millis(long nanos) {
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }

    static String human(long nanos) {
        if (nanos < 1_000_000_000L) {
            return Math.max(1, millis(nanos)) + " ms";
        }
        if (nanos >= 86_400_000_000_000L) {
            // A monthly cap's reset: seconds would say nothing at that length.
            return String.format(Locale.ROOT, "%.1f days", nanos / 86_400e9);
        }
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
