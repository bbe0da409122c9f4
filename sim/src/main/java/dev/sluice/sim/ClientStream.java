package dev.sluice.sim;

import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.mock.limits.TokenCounting;
import dev.sluice.sim.engine.RandomStreams;
import dev.sluice.sim.scenario.ProviderSpec;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.WorkloadSpec;
import dev.sluice.sim.strategy.SimRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One workload entry as a source of requests: when they arrive and what each one is. Sizes and
 * arrivals come from their own named random streams, so every strategy (and the end-to-end mode)
 * sees the same requests at the same times for the same seed.
 */
final class ClientStream {

    final WorkloadSpec spec;
    final ProfileConfig profile;
    private final RequestPath path;
    private final TrafficClass trafficClass;
    private final Duration deadline;
    private final ProviderSpec provider;
    private final TokenCounting counting;
    private final long minExecutionNanos;
    private final SplittableRandom sizes;
    private final ArrivalGenerator arrivals;
    private final AtomicLong ids;

    private ClientStream(Scenario scenario, int index, WorkloadSpec w, RandomStreams random, long end,
            AtomicLong ids, java.util.function.Function<String, TokenCounting> counting) {
        this.spec = w;
        this.ids = ids;
        KeyConfig key = scenario.config().keys().stream().filter(k -> k.id().equals(w.key())).findFirst()
                .orElseThrow();
        String profileId = w.profile().orElse(key.profiles().get(0));
        this.profile = scenario.config().profiles().get(profileId);
        this.path = new RequestPath(key.org(), key.tenant(), key.team(), key.id(), profileId, profile.deployment());
        this.trafficClass = w.trafficClass().orElse(key.trafficClass());
        this.deadline = min(w.deadline().orElse(null), key.deadline().orElse(null));
        this.provider = scenario.providers().get(profile.deployment());
        this.counting = counting.apply(profile.deployment());
        this.minExecutionNanos = provider.latency().ttftMedian().toNanos()
                + (long) (w.outputTokens().mean() / provider.latency().tokensPerSecond() * 1e9);
        String stream = "workload/" + index + "/" + w.name();
        this.sizes = random.stream(stream + "/sizes");
        long stop = Math.min(end, w.stop().map(Duration::toNanos).orElse(end));
        this.arrivals = new ArrivalGenerator(w.arrival(), w.start().toNanos(), stop, random.stream(stream + "/arrivals"));
    }

    /**
     * One stream per workload entry, in file order, sharing one id sequence.
     *
     * @param counting how the provider behind each deployment counts prompts
     */
    static List<ClientStream> all(Scenario scenario, RandomStreams random, long endNanos,
            java.util.function.Function<String, TokenCounting> counting) {
        List<ClientStream> out = new ArrayList<>();
        AtomicLong ids = new AtomicLong();
        int i = 0;
        for (WorkloadSpec w : scenario.workload()) {
            out.add(new ClientStream(scenario, i++, w, random, endNanos, ids, counting));
        }
        return out;
    }

    /** The next arrival time, or {@link Long#MAX_VALUE} when the stream has ended. */
    long nextArrival() {
        return arrivals.next();
    }

    /** The request arriving at {@code now}; draws the same number of samples every time. */
    SimRequest create(long now) {
        WorkloadSpec w = spec;
        long prompt = w.promptTokens().sample(sizes);
        long maxTokens = Math.max(1, w.maxTokens().sample(sizes));
        long output = Math.min(maxTokens, w.outputTokens().sample(sizes));
        boolean streaming = sizes.nextDouble() < w.streamingShare();
        double noise = (sizes.nextDouble() * 2 - 1) * w.inputEstimateError();
        long cacheRead = (long) Math.floor(prompt * w.cacheReadShare());
        long providerPrompt = counting.prompt(prompt);
        long providerCacheRead = counting.cacheRead(prompt, cacheRead);
        long charged = provider.cacheReadCountsAgainstInputTpm() ? providerPrompt : providerPrompt - providerCacheRead;
        long counted = Math.max(0, Math.round(prompt * (1 + noise)));
        return new SimRequest(ids.getAndIncrement(), w.name(), path, trafficClass, now,
                deadline == null ? SimRequest.NO_DEADLINE : now + deadline.toNanos(), prompt, cacheRead, providerPrompt,
                providerCacheRead, charged, maxTokens, output, streaming, counted, minExecutionNanos);
    }

    private static Duration min(Duration a, Duration b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) <= 0 ? a : b;
    }
}
