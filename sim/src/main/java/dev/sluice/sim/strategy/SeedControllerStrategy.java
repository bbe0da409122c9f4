package dev.sluice.sim.strategy;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.sim.provider.ProviderReply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference controller ({@link SeedController}) in front of each deployment, on each replica.
 * Deferred requests are evaluated again after the wait the controller names, for at most their
 * class's queue budget; shed requests are refused with the controller's wait as the retry hint.
 * The controller learns from every 429 (reading only the {@code retry-after} header, in whole
 * seconds or as an HTTP-date, as the reference does) and every 2xx.
 */
final class SeedControllerStrategy implements Strategy {

    private final StrategyContext ctx;
    private final List<Map<String, SeedController>> replicas = new ArrayList<>();
    private final ReplicaPicker picker;

    SeedControllerStrategy(StrategyContext ctx) {
        this.ctx = ctx;
        this.picker = new ReplicaPicker(ctx);
        for (int i = 0; i < ctx.scenario().replicas(); i++) {
            Map<String, SeedController> m = new HashMap<>();
            for (DeploymentConfig d : ctx.scenario().config().deployments().values()) {
                double rpm = d.limits().get(Dimension.REQUESTS).map(Limit::amount).orElse(1_000_000L);
                double itpm = d.limits().get(Dimension.INPUT_TOKENS)
                        .or(() -> d.limits().get(Dimension.TOTAL_TOKENS)).map(Limit::amount).orElse(1_000_000_000L);
                m.put(d.id(), new SeedController(rpm, itpm));
            }
            replicas.add(m);
        }
    }

    @Override
    public String name() {
        return "seed-controller";
    }

    @Override
    public void submit(Attempt a) {
        SeedController c = replicas.get(picker.next()).get(a.request().deployment());
        a.estimate(a.request().countedPromptTokens(), 0);
        evaluate(a, c);
    }

    private void evaluate(Attempt a, SeedController c) {
        SimRequest r = a.request();
        long now = ctx.loop().now();
        double remaining = r.hasDeadline() ? (r.deadlineNanos() - now) / 1e9 : Double.POSITIVE_INFINITY;
        SeedController.Verdict v = c.evaluate(r.trafficClass().wireName(), r.countedPromptTokens(), remaining,
                r.minExecutionNanos() / 1e9, now / 1e9);
        long queued = now - a.submittedAtNanos();
        switch (v.action()) {
            case ADMIT, ADMIT_BROWNOUT -> ctx.dispatch(a, queued, StrategyContext.ReplyHandler.passOn(reply -> learn(c, reply)));
            case SHED -> ctx.reject(a, queued, new LocalRejection(
                    v.reason().equals("deadline_budget_insufficient") ? "rejected_locally" : "shed_under_pressure",
                    v.reason(), Math.max(1, Math.round(v.waitSeconds() * 1000)),
                    !v.reason().equals("deadline_budget_insufficient")));
            case DEFER -> {
                long waitNanos = Math.round(v.waitSeconds() * 1e9);
                long classBudget = ctx.scenario().config().classes().get(r.trafficClass()).maxQueueWait().toNanos();
                if (queued + waitNanos > classBudget) {
                    ctx.reject(a, queued, new LocalRejection(queued == 0 ? "rejected_locally" : "queued_then_timed_out",
                            v.reason(), Math.max(1, waitNanos / 1_000_000), true));
                } else {
                    ctx.loop().after(waitNanos, () -> evaluate(a, c));
                }
            }
        }
    }

    private void learn(SeedController c, ProviderReply reply) {
        double now = ctx.loop().now() / 1e9;
        switch (reply.outcome()) {
            case SUCCESS -> c.recordOutcome(200, 0, now);
            case RATE_LIMITED, TOO_LARGE -> c.recordOutcome(429, retryAfterHeaderSeconds(reply), now);
            default -> { } // the reference learns only from 429 and 2xx
        }
    }

    /** The reference reads only {@code retry-after}: whole seconds, or an HTTP-date; anything else is no hint. */
    private double retryAfterHeaderSeconds(ProviderReply reply) {
        if (reply.retryAfterHeader().isEmpty()) {
            return 0;
        }
        String v = reply.retryAfterHeader().get().trim();
        if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
            return Double.parseDouble(v);
        }
        try {
            long at = java.time.ZonedDateTime.parse(v, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant().toEpochMilli();
            return Math.max(0, (at - ctx.loop().clock().epochMillis()) / 1000.0);
        } catch (java.time.format.DateTimeParseException e) {
            return 0;
        }
    }
}
