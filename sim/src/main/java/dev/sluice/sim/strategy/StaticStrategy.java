package dev.sluice.sim.strategy;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fixed per-minute limiter per deployment, on each gateway replica: requests and tokens (prompt
 * count plus {@code max_tokens}) are counted in calendar-minute windows against the deployment's
 * configured limits. What does not fit waits, first come first served, for the next window if its
 * class budget and deadline allow. No fairness between tenants, no adaptation to what the provider
 * says, no settlement.
 */
final class StaticStrategy implements Strategy {

    private static final long WINDOW = 60_000_000_000L;

    private final StrategyContext ctx;
    private final List<Map<String, Window>> replicas = new ArrayList<>();
    private final ReplicaPicker picker;

    StaticStrategy(StrategyContext ctx) {
        this.ctx = ctx;
        this.picker = new ReplicaPicker(ctx);
        for (int i = 0; i < ctx.scenario().replicas(); i++) {
            Map<String, Window> m = new HashMap<>();
            for (DeploymentConfig d : ctx.scenario().config().deployments().values()) {
                m.put(d.id(), new Window(d.limits()));
            }
            replicas.add(m);
        }
    }

    @Override
    public String name() {
        return "static";
    }

    @Override
    public void submit(Attempt a) {
        Window w = replicas.get(picker.next()).get(a.request().deployment());
        SimRequest r = a.request();
        long in = r.countedPromptTokens();
        long out = r.maxTokens();
        a.estimate(in, out);
        long now = ctx.loop().now();
        if (w.neverFits(in, out)) {
            ctx.reject(a, 0, new LocalRejection("rejected_locally", "request_too_large", 1, false));
            return;
        }
        w.roll(now);
        if (w.queue.isEmpty() && w.fits(in, out)) {
            w.take(in, out);
            ctx.dispatch(a, 0, StrategyContext.ReplyHandler.passOn(reply -> { }));
            return;
        }
        long nextWindow = (now / WINDOW + 1) * WINDOW;
        long budget = budget(r, now);
        if (nextWindow - now > budget) {
            ctx.reject(a, 0, new LocalRejection("rejected_locally", "static_limit_reached",
                    Math.ceilDiv(nextWindow - now, 1_000_000L), true));
            return;
        }
        Waiter waiter = new Waiter(a, in, out, now, now + budget);
        w.queue.addLast(waiter);
        ctx.loop().at(waiter.giveUpAt, () -> {
            if (w.queue.remove(waiter)) {
                long t = ctx.loop().now();
                long next = (t / WINDOW + 1) * WINDOW;
                ctx.reject(a, t - waiter.since, new LocalRejection("queued_then_timed_out", "static_queue_wait_exceeded",
                        Math.ceilDiv(next - t, 1_000_000L), true));
            }
        });
        w.wakeAt(nextWindow);
    }

    private long budget(SimRequest r, long now) {
        long classBudget = ctx.scenario().config().classes().get(r.trafficClass()).maxQueueWait().toNanos();
        return r.hasDeadline() ? Math.min(classBudget, r.deadlineNanos() - now) : classBudget;
    }

    private record Waiter(Attempt attempt, long in, long out, long since, long giveUpAt) {}

    private final class Window {
        final long rpm;
        final long inputTpm;
        final long outputTpm;
        final long tpm;
        long index = Long.MIN_VALUE;
        long requests;
        long input;
        long output;
        final ArrayDeque<Waiter> queue = new ArrayDeque<>();
        long scheduledWake = -1;

        Window(Limits limits) {
            rpm = amount(limits, Dimension.REQUESTS);
            inputTpm = amount(limits, Dimension.INPUT_TOKENS);
            outputTpm = amount(limits, Dimension.OUTPUT_TOKENS);
            tpm = amount(limits, Dimension.TOTAL_TOKENS);
        }

        private static long amount(Limits l, Dimension d) {
            return l.get(d).map(Limit::amount).orElse(Long.MAX_VALUE);
        }

        void roll(long now) {
            long i = now / WINDOW;
            if (i != index) {
                index = i;
                requests = 0;
                input = 0;
                output = 0;
            }
        }

        boolean neverFits(long in, long out) {
            return in > inputTpm || out > outputTpm || in + out > tpm;
        }

        boolean fits(long in, long out) {
            return requests + 1 <= rpm && input + in <= inputTpm && output + out <= outputTpm
                    && input + output + in + out <= tpm;
        }

        void take(long in, long out) {
            requests++;
            input += in;
            output += out;
        }

        void wakeAt(long t) {
            if (scheduledWake == t) {
                return;
            }
            scheduledWake = t;
            ctx.loop().at(t, this::drain);
        }

        void drain() {
            long now = ctx.loop().now();
            scheduledWake = -1;
            roll(now);
            while (!queue.isEmpty() && fits(queue.peekFirst().in, queue.peekFirst().out)) {
                Waiter w = queue.pollFirst();
                take(w.in, w.out);
                ctx.dispatch(w.attempt, now - w.since, StrategyContext.ReplyHandler.passOn(reply -> { }));
            }
            if (!queue.isEmpty()) {
                wakeAt((now / WINDOW + 1) * WINDOW);
            }
        }
    }
}
