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
                        + "retrying cannot help, make the request smaller.", s.needed(), what, s.scope(), s.capacity()));
    }

    static Rejection dailyCapSpent(ReserveOutcome.Short s) {
        return new Rejection(GatewayDecision.BUDGET_EXHAUSTED, code(s, "exhausted"), Optional.of(s.dimension()),
                Optional.of(s.scope()), millis(s.waitNanos()), false,
                String.format(Locale.ROOT, "%s has spent its %s for today (%d left, %d needed); it resets in %s.",
                        s.scope(), describe(s.dimension()), s.available(), s.needed(), human(s.waitNanos())));
    }

    static Rejection waitTooLong(ReserveOutcome.Short s, long waitNanos, long budgetNanos, TrafficClass c) {
        return waitTooLong(s, waitNanos, budgetNanos, c, "");
    }

    /**
     * As {@link #waitTooLong(ReserveOutcome.Short, long, long, TrafficClass)}; when the shortfall
     * was the class reserve held back for {@code heldFor} (say {@code interactive}), the code ends
     * in {@code _reserved} and the sentence says what was held back and for whom.
     */
    static Rejection waitTooLong(ReserveOutcome.Short s, long waitNanos, long budgetNanos, TrafficClass c,
            String heldFor) {
        String when = s.waitKnown() ? "capacity returns in " + human(waitNanos)
                : "it depends on requests in flight finishing";
        boolean reserved = s.headroomBound();
        String shortOf = reserved
                ? String.format(Locale.ROOT, "%s has %d %s but %d of them are held back for %s requests (class reserve) "
                        + "and %d are needed", s.scope(), s.available(), describe(s.dimension()), s.heldBack(),
                        holders(heldFor), s.needed())
                : String.format(Locale.ROOT, "%s is short of %s (%d available, %d needed)", s.scope(),
                        describe(s.dimension()), s.available(), s.needed());
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, code(s, reserved ? "reserved" : "exhausted"),
                Optional.of(s.dimension()), Optional.of(s.scope()), millis(waitNanos), true,
                String.format(Locale.ROOT, "%s; %s, longer than the %s request may wait (%s).", shortOf, when,
                        c.wireName(), human(budgetNanos)));
    }

    static Rejection queueFull(TrafficClass c, int length, long retryNanos) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, c.wireName() + "_queue_full", Optional.empty(),
                Optional.empty(), millis(retryNanos), true,
                String.format(Locale.ROOT, "The %s queue already holds %d waiting requests.", c.wireName(), length));
    }

    static Rejection queueBusy(TrafficClass c, long waitNanos, long budgetNanos) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, c.wireName() + "_queue_wait_exceeded",
                Optional.empty(), Optional.empty(), millis(waitNanos), true,
                String.format(Locale.ROOT, "Requests already waiting ahead would hold this one for about %s, longer "
                        + "than the %s request may wait (%s).", human(waitNanos), c.wireName(), human(budgetNanos)));
    }

    static Rejection timedOut(TrafficClass c, long waitedNanos, Optional<ReserveOutcome.Short> last, long retryNanos) {
        return timedOut(c, waitedNanos, last, retryNanos, "");
    }

    /** As {@link #timedOut(TrafficClass, long, Optional, long)}, saying when the class reserve held it back. */
    static Rejection timedOut(TrafficClass c, long waitedNanos, Optional<ReserveOutcome.Short> last, long retryNanos,
            String heldFor) {
        String cause = last.map(s -> " for " + describe(s.dimension()) + " on " + s.scope()
                + (s.headroomBound() ? String.format(Locale.ROOT, " (%d of them held back for %s requests, class reserve)",
                        s.heldBack(), holders(heldFor)) : "")).orElse("");
        return new Rejection(GatewayDecision.QUEUED_THEN_TIMED_OUT, "queue_wait_exceeded",
                last.map(ReserveOutcome.Short::dimension), last.map(ReserveOutcome.Short::scope), millis(retryNanos),
                true, String.format(Locale.ROOT, "The %s request waited %s%s and its wait budget or deadline ran out.",
                        c.wireName(), human(waitedNanos), cause));
    }

    /** Who a reserve is held back for, as words; "higher-class" when not told. */
    private static String holders(String heldFor) {
        return heldFor.isEmpty() ? "higher-class" : heldFor;
    }

    static Rejection deadlinePassed(TrafficClass c) {
        return new Rejection(GatewayDecision.REJECTED_LOCALLY, "deadline_exceeded", Optional.empty(), Optional.empty(),
                1, false, "The " + c.wireName() + " request's deadline had already passed when it arrived.");
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
        };
    }

    static long millis(long nanos) {
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }

    static String human(long nanos) {
        if (nanos < 1_000_000_000L) {
            return Math.max(1, millis(nanos)) + " ms";
        }
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
