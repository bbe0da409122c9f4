package dev.sluice.sim.provider;

import dev.sluice.limits.Limits;
import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderFamily;
import dev.sluice.mock.limits.ProviderLimitModel;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.sim.engine.EventLoop;
import dev.sluice.sim.engine.RandomStreams;
import dev.sluice.sim.scenario.FaultKind;
import dev.sluice.sim.scenario.ProviderSpec;
import dev.sluice.sim.scenario.ScriptedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The provider behind one deployment, in virtual time. Limits are enforced by the mock provider's
 * {@link ProviderLimitModel} (the same code the HTTP mock runs) with one member of the provider
 * family ({@link ProviderBehaviour}), so the simulator and the mock agree on what a provider refuses
 * and says. Around it: a latency model (log-normal time to first token, then a steady token rate),
 * a background error rate, scripted fault bursts and limit cuts.
 */
public final class SimProvider {

    private final String deployment;
    private final String kind;
    private final ProviderSpec spec;
    private final Limits configured;
    private final EventLoop loop;
    private final ProviderLimitModel model;
    private final SplittableRandom latencyRandom;
    private final SplittableRandom faultRandom;
    private final List<ScriptedEvent.FaultBurst> bursts = new ArrayList<>();
    /** Faults left to a burst that has a count. */
    private final java.util.Map<ScriptedEvent.FaultBurst, Integer> faultsLeft = new java.util.HashMap<>();
    private final ProviderUsage usage;
    private final Wire wire;
    /** The quotas shared above this deployment that every call must also pass, outermost first. */
    private List<SharedQuota> shared = List.of();

    /**
     * @param behaviour how this provider enforces and reports its limits (the scenario's pins applied)
     * @param accountingUntilNanos admissions before this time count towards utilisation
     */
    public SimProvider(String deployment, String kind, ProviderSpec spec, Limits configured,
            ProviderBehaviour behaviour, EventLoop loop, RandomStreams random, long accountingUntilNanos) {
        this.deployment = deployment;
        this.kind = kind;
        this.spec = spec;
        this.configured = configured;
        this.loop = loop;
        ProviderLimits limits = spec.providerLimits(configured, 1.0);
        this.model = new ProviderLimitModel(limits, behaviour, 0L, 0L);
        this.latencyRandom = random.stream("provider/" + deployment + "/latency");
        this.faultRandom = random.stream("provider/" + deployment + "/faults");
        this.usage = new ProviderUsage(model, accountingUntilNanos);
        this.wire = new Wire(kind, behaviour);
    }

    /** Every call must also pass {@code quotas}, shared with other deployments. */
    public void underQuotas(List<SharedQuota> quotas) {
        this.shared = List.copyOf(quotas);
    }

    /** What the provider of a deployment kind documents, which no drawn member may contradict. */
    public static ProviderFamily.Facts facts(String kind) {
        return Wire.flavour(kind).facts();
    }

    /** How this provider enforces and reports its limits. */
    public ProviderBehaviour behaviour() {
        return model.behaviour();
    }

    public String deployment() {
        return deployment;
    }

    /** The dialect: openai, azure-openai, anthropic, gemini, openai-compatible. */
    public String kind() {
        return kind;
    }

    public ProviderUsage usage() {
        return usage;
    }

    /** The limits in force now. */
    public ProviderLimits limits() {
        return model.limits();
    }

    /** Scales the true limits to {@code factor} of the configured ones (1 restores them). */
    public void scaleLimits(double factor) {
        long now = loop.now();
        ProviderLimits next = spec.providerLimits(configured, factor);
        usage.limitsChanged(next, now);
        model.setLimits(next, now);
    }

    public void faultBurst(ScriptedEvent.FaultBurst burst) {
        bursts.add(burst);
        burst.count().ifPresent(n -> faultsLeft.put(burst, n));
        loop.after(burst.duration().toNanos(), () -> {
            bursts.remove(burst);
            faultsLeft.remove(burst);
        });
    }

    /** Sends an attempt; {@code onReply} runs in virtual time when the answer is complete. */
    public void call(ProviderCall call, Consumer<ProviderReply> onReply) {
        long now = loop.now();
        long errorLatency = spec.latency().errorLatency().toNanos();
        usage.arrived(now);
        Admission a = model.tryAdmit(call.tenant(), call.promptTokens() - call.cacheReadTokens(),
                call.cacheReadTokens(), call.maxTokens(), now);
        switch (a) {
            case Admission.Limited l -> {
                Wire.Read w = wire.rejection(model.limits(), l, model.reportedSnapshot(now), loop.clock().epochMillis());
                ProviderReply r = new ProviderReply(ProviderReply.Outcome.RATE_LIMITED, 0, 0, 0, w.sdkHintMillis(),
                        w.retryAfterHeader(), w.signal());
                usage.rejected(now, l.which().name().toLowerCase(java.util.Locale.ROOT));
                loop.after(errorLatency, () -> onReply.accept(r));
            }
            case Admission.TooLarge t -> {
                Wire.Read w = wire.rejection(model.limits(), t, model.reportedSnapshot(now), loop.clock().epochMillis());
                ProviderReply r = new ProviderReply(ProviderReply.Outcome.TOO_LARGE, 0, 0, 0, w.sdkHintMillis(),
                        w.retryAfterHeader(), w.signal());
                usage.rejected(now, "too_large");
                loop.after(errorLatency, () -> onReply.accept(r));
            }
            case Admission.Accepted acc -> {
                List<dev.sluice.mock.limits.Ticket> tickets = new ArrayList<>(shared.size());
                for (SharedQuota q : shared) {
                    Admission above = q.tryAdmit(call.tenant(), call.promptTokens() - call.cacheReadTokens(),
                            call.cacheReadTokens(), call.maxTokens(), now);
                    if (!(above instanceof Admission.Accepted ok)) {
                        // Refused by the shared quota: nothing ran here, and what the others took goes back unused.
                        model.complete(acc.ticket(), 0, now);
                        tickets.forEach(t -> sharedOf(t, tickets).complete(t, 0, now));
                        Wire.Read w = q.rejection(above, now, loop.clock().epochMillis());
                        ProviderReply r = new ProviderReply(ProviderReply.Outcome.RATE_LIMITED, 0, 0, 0,
                                w.sdkHintMillis(), w.retryAfterHeader(), w.signal());
                        usage.rejected(now, "shared:" + q.id());
                        loop.after(errorLatency, () -> onReply.accept(r));
                        return;
                    }
                    tickets.add(ok.ticket());
                }
                accepted(call, acc, tickets, now, onReply);
            }
        }
    }

    /** The shared quota that issued {@code t}, the i-th of {@code tickets}. */
    private SharedQuota sharedOf(dev.sluice.mock.limits.Ticket t, List<dev.sluice.mock.limits.Ticket> tickets) {
        return shared.get(tickets.indexOf(t));
    }

    /** Ends a call on this deployment and every shared quota above it. */
    private void complete(Admission.Accepted acc, List<dev.sluice.mock.limits.Ticket> tickets, long produced, long t) {
        model.complete(acc.ticket(), produced, t);
        for (int i = 0; i < tickets.size(); i++) {
            shared.get(i).complete(tickets.get(i), produced, t);
        }
    }

    private void accepted(ProviderCall call, Admission.Accepted acc, List<dev.sluice.mock.limits.Ticket> tickets,
            long now, Consumer<ProviderReply> onReply) {
        long spike = 0;
        double errorRate = spec.errorRate();
        List<FaultKind> kinds = spec.errors();
        ScriptedEvent.FaultBurst from = null;
        for (ScriptedEvent.FaultBurst b : bursts) {
            spike = Math.max(spike, b.latencySpike().toNanos());
            if (b.errorRate() > errorRate && faultsLeft.getOrDefault(b, 1) > 0) {
                errorRate = b.errorRate();
                kinds = b.errors();
                from = b;
            }
        }
        // Both draws happen for every admitted call, so one stream's sequence does not depend on outcomes.
        double faultDraw = faultRandom.nextDouble();
        int kindDraw = faultRandom.nextInt(Math.max(1, kinds.size()));
        double fraction = faultRandom.nextDouble();
        long ttft = ttftNanos() + spike;
        long streamNanos = (long) (call.outputTokens() / spec.latency().tokensPerSecond() * 1e9);
        long input = call.promptTokens();
        long uncachedInput = spec.cacheReadCountsAgainstInputTpm() ? call.promptTokens()
                : call.promptTokens() - call.cacheReadTokens();
        if (faultDraw < errorRate && !kinds.isEmpty()) {
            FaultKind k = kinds.get(kindDraw);
            if (from != null) {
                faultsLeft.computeIfPresent(from, (b, n) -> n - 1);
            }
            java.util.Optional<java.time.Duration> hint = from == null ? java.util.Optional.empty() : from.retryAfter();
            long at;
            long produced;
            ProviderReply r;
            if (k == FaultKind.RESET) {
                produced = (long) Math.floor(call.outputTokens() * fraction);
                at = ttft + (long) (streamNanos * fraction);
                r = new ProviderReply(ProviderReply.Outcome.RESET, 0, 0, produced, OptionalLong.empty(),
                        Optional.empty(), wire.connectionFailed());
            } else {
                produced = 0;
                at = spec.latency().errorLatency().toNanos() + spike;
                int status = k == FaultKind.OVERLOADED ? (kind.equals("anthropic") ? 529 : 503) : 500;
                ProviderReply.Outcome o = k == FaultKind.OVERLOADED ? ProviderReply.Outcome.OVERLOADED
                        : ProviderReply.Outcome.SERVER_ERROR;
                if (hint.isPresent()) {
                    Wire.Read w = wire.status(status, hint.get(), loop.clock().epochMillis());
                    r = new ProviderReply(o, 0, 0, 0, w.sdkHintMillis(), w.retryAfterHeader(), w.signal());
                } else {
                    r = new ProviderReply(o, 0, 0, 0, OptionalLong.empty(), Optional.empty(), wire.status(status));
                }
            }
            usage.admitted(now, uncachedInput, produced, false);
            loop.after(at, () -> {
                complete(acc, tickets, produced, loop.now());
                onReply.accept(r);
            });
            return;
        }
        usage.admitted(now, uncachedInput, call.outputTokens(), true);
        loop.after(ttft + streamNanos, () -> {
            long t = loop.now();
            complete(acc, tickets, call.outputTokens(), t);
            LimitSnapshot snap = model.reportedSnapshot(t);
            onReply.accept(new ProviderReply(ProviderReply.Outcome.SUCCESS, input, call.cacheReadTokens(),
                    call.outputTokens(), OptionalLong.empty(), Optional.empty(),
                    wire.success(model.limits(), snap, loop.clock().epochMillis()).signal()));
        });
    }

    private long ttftNanos() {
        var lat = spec.latency();
        double median = lat.ttftMedian().toNanos();
        double sigma = Math.log((double) lat.ttftP95().toNanos() / median) / 1.6448536269514722;
        double z = gaussian(latencyRandom);
        return (long) (median * Math.exp(sigma * z));
    }

    /** A standard normal draw from two uniforms (Box-Muller); always two draws, for stable streams. */
    private static double gaussian(SplittableRandom r) {
        double u1 = Math.max(r.nextDouble(), 1e-300);
        double u2 = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    /** Requests the provider holds open now. */
    public int inFlight() {
        return model.inFlight();
    }
}
