package dev.sluice.bench;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Admission while a deployment's batch queue is full, the overload case: two tenants of equal
 * weight have {@code depth} requests waiting between them, time stands still so nothing drains,
 * and every new request of either tenant is judged (its place in fair order, its expected wait)
 * and refused as "queue full". What it costs must not grow with the queue, or a burst that fills
 * the queue also slows every admission behind it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class DeepQueueBenchmark {

    @Param({"100", "1000", "10000"})
    int depth;

    QuotaGovernor governor;
    AdmissionRequest fromA;
    AdmissionRequest fromB;

    @Setup
    public void fill() {
        NanoClock stopped = new NanoClock() {
            @Override
            public long nanos() {
                return 0;
            }

            @Override
            public long epochMillis() {
                return 0;
            }
        };
        // 6,000 requests a minute: each waiter costs 10 ms, so even the deepest queue is well within batch's 20 minutes.
        GovernorConfig config = GovernorConfig.builder()
                .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep"), Limits.builder().add(Dimension.REQUESTS, 6_000).build())
                .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofMinutes(20), depth))
                .build();
        governor = new QuotaGovernor(config, new InMemoryQuotaStore(stopped, ZoneOffset.UTC), stopped);
        fromA = request("a");
        fromB = request("b");
        int queued = 0;
        while (queued < depth) {
            Decision d = governor.admit(queued % 2 == 0 ? fromA : fromB);
            if (d instanceof Decision.Queued) {
                queued++;
            } else if (d instanceof Decision.Rejected r) {
                throw new IllegalStateException("filling the queue was refused: " + r.rejection().message());
            }
        }
    }

    private static AdmissionRequest request(String tenant) {
        return new AdmissionRequest("bench-" + tenant, new RequestPath("org", tenant, tenant + "-team", tenant + "-key",
                "chat", "dep"), new Demand(100, 100, false), TrafficClass.BATCH, AdmissionRequest.NO_DEADLINE);
    }

    @Benchmark
    public Object admitIntoFullQueue() {
        Decision a = governor.admit(fromA);
        Decision b = governor.admit(fromB);
        if (!(a instanceof Decision.Rejected) || !(b instanceof Decision.Rejected)) {
            throw new IllegalStateException("the queue should be full: " + a + ", " + b);
        }
        return b;
    }

    /** A full queue in which one waiter times out per operation while one new request joins. */
    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Expiring {
        static final long BUDGET_NANOS = 1_000_000_000L;

        @Param({"100", "1000", "10000"})
        int depth;

        final java.util.concurrent.atomic.AtomicLong time = new java.util.concurrent.atomic.AtomicLong();
        QuotaGovernor governor;
        AdmissionRequest request;
        long step;

        @Setup
        public void fill() {
            NanoClock clock = new NanoClock() {
                @Override
                public long nanos() {
                    return time.get();
                }

                @Override
                public long epochMillis() {
                    return time.get() / 1_000_000;
                }
            };
            GovernorConfig config = GovernorConfig.builder()
                    .scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "dep"),
                            Limits.builder().add(Dimension.CONCURRENT_REQUESTS, 1).build())
                    .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofNanos(BUDGET_NANOS), depth + 1))
                    .build();
            governor = new QuotaGovernor(config, new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock);
            request = DeepQueueBenchmark.request("a");
            if (!(governor.admit(request) instanceof Decision.Admitted)) {
                throw new IllegalStateException("the slot should be free at first");
            }
            step = BUDGET_NANOS / depth;
            for (int i = 0; i < depth; i++) {
                time.addAndGet(step);
                if (!(governor.admit(request) instanceof Decision.Queued)) {
                    throw new IllegalStateException("filling the queue was refused");
                }
            }
        }
    }

    @Benchmark
    public Object expireOneJoinOne(Expiring q) {
        q.time.addAndGet(q.step);
        q.governor.onTimer();
        Decision d = q.governor.admit(q.request);
        if (!(d instanceof Decision.Queued)) {
            throw new IllegalStateException("the new request should wait: " + d);
        }
        return d;
    }
}
