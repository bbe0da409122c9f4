package dev.sluice.bench;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.governor.Usage;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.NanoClock;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Admit + settle on a six-level path (org > tenant > team > key > profile > deployment), four
 * dimensions limited on every level (rpm, input tpm, output tpm, concurrency), 10,000 keys in the
 * tree. Limits are far above what the benchmark can use, so every admission succeeds and what is
 * measured is the governor's own cost.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GovernorBenchmark {

    static final int TENANTS = 100;
    static final int TEAMS_PER_TENANT = 10;
    static final int KEYS_PER_TEAM = 10;
    static final int KEYS = TENANTS * TEAMS_PER_TENANT * KEYS_PER_TEAM;
    static final String[] PROFILES = {"chat", "fast", "batch", "embed"};
    static final String[] DEPLOYMENTS = {"dep-east", "dep-west"};

    /** One governor shared by all benchmark threads. */
    @State(org.openjdk.jmh.annotations.Scope.Benchmark)
    public static class Tree {
        QuotaGovernor governor;
        RequestPath[] paths;

        @Setup
        public void build() {
            Limits huge = Limits.builder().add(Dimension.REQUESTS, 1_000_000_000_000L)
                    .add(Dimension.INPUT_TOKENS, 1_000_000_000_000L).add(Dimension.OUTPUT_TOKENS, 1_000_000_000_000L)
                    .add(Dimension.CONCURRENT_REQUESTS, 1_000_000_000L).build();
            GovernorConfig.Builder config = GovernorConfig.builder();
            config.scope(Scope.of(ScopeLevel.ORGANISATION, "org"), huge);
            paths = new RequestPath[KEYS];
            int k = 0;
            for (int t = 0; t < TENANTS; t++) {
                String tenant = "tenant-" + t;
                config.scope(Scope.of(ScopeLevel.TENANT, tenant), huge);
                for (int m = 0; m < TEAMS_PER_TENANT; m++) {
                    String team = tenant + "-team-" + m;
                    config.scope(Scope.of(ScopeLevel.TEAM, team), huge);
                    for (int i = 0; i < KEYS_PER_TEAM; i++) {
                        String key = team + "-key-" + i;
                        config.scope(Scope.of(ScopeLevel.API_KEY, key), huge);
                        paths[k] = new RequestPath("org", tenant, team, key, PROFILES[k % PROFILES.length],
                                DEPLOYMENTS[k % DEPLOYMENTS.length]);
                        k++;
                    }
                }
            }
            for (String p : PROFILES) {
                config.scope(Scope.of(ScopeLevel.MODEL_PROFILE, p), huge);
            }
            for (String d : DEPLOYMENTS) {
                config.scope(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, d), huge);
            }
            NanoClock clock = NanoClock.system();
            governor = new QuotaGovernor(config.build(), new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock);
        }
    }

    /** Each thread walks the keys from its own offset, so two threads mostly hit different tenants. */
    @State(org.openjdk.jmh.annotations.Scope.Thread)
    public static class Cursor {
        int next;
        long ids;
        final Demand demand = new Demand(800, 200, false);
        final Usage usage = new Usage(780, 150);

        @Setup
        public void start(org.openjdk.jmh.infra.ThreadParams params) {
            next = params.getThreadIndex() * (KEYS / 2 + 17);
        }

        AdmissionRequest nextRequest(RequestPath[] paths) {
            RequestPath p = paths[next];
            next = next + 1 == paths.length ? 0 : next + 1;
            return new AdmissionRequest("bench", p, demand, TrafficClass.INTERACTIVE, AdmissionRequest.NO_DEADLINE);
        }
    }

    static Object admitAndSettle(Tree tree, Cursor cursor) {
        Decision d = tree.governor.admit(cursor.nextRequest(tree.paths));
        if (d instanceof Decision.Admitted a) {
            return a.reservation().settle(cursor.usage);
        }
        throw new IllegalStateException("benchmark limits were reached: " + d);
    }

    @Benchmark
    @Threads(1)
    public Object admitSettleOneThread(Tree tree, Cursor cursor) {
        return admitAndSettle(tree, cursor);
    }

    @Benchmark
    @Threads(2)
    public Object admitSettleTwoThreads(Tree tree, Cursor cursor) {
        return admitAndSettle(tree, cursor);
    }
}
