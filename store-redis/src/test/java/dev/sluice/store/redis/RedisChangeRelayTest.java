package dev.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.ControlJournal;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replicas with separate ledgers (an in-memory journal each) and one real Redis namespace: a
 * change made on one is in force on the others once their relay has read it, exactly once, and a
 * replica started later begins with every change the fleet made.
 */
class RedisChangeRelayTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-relay" } } } } } } }
            """, "relay.yaml", v -> null);
    private static final Actor OPS = new Actor("ops", AdminScope.ADMIN);
    private static final Duration EVERY = Duration.ofMillis(100);
    private static final Scope TENANT = Scope.of(ScopeLevel.TENANT, "acme");

    private final String ns = RedisTestSupport.namespace();
    private final List<AutoCloseable> open = new ArrayList<>();

    /** One replica: its runtime, its own journal behind the relay, and a signal per import. */
    private record Replica(SluiceRuntime runtime, ControlPlane control, RedisChangeRelay relay, ControlJournal local,
            LinkedBlockingQueue<Boolean> imported) {}

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        RedisTestSupport.deleteNamespace(ns);
    }

    private Replica replica() {
        return replica(ControlJournal.inMemory());
    }

    private Replica replica(ControlJournal local) {
        RedisQuotaStore redis = RedisQuotaStore.connect(RedisTestSupport.URI, RedisTestSupport.config(ns).build());
        open.add(redis);
        FakeClock clock = new FakeClock();
        SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC))
                .clock(clock).adaptive(false).build();
        RedisChangeRelay relay = RedisChangeRelay.start(redis, local, EVERY);
        open.add(relay);
        ControlPlane control = new ControlPlane(runtime, relay);
        control.replay();
        LinkedBlockingQueue<Boolean> imported = new LinkedBlockingQueue<>();
        relay.whenImported(() -> {
            control.sync();
            imported.add(true);
        });
        return new Replica(runtime, control, relay, local, imported);
    }

    /** Waits for the replica's relay to import until {@code condition} holds, at most five seconds. */
    private static void awaitImport(Replica r, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            long left = until - System.nanoTime();
            assertThat(left).as("imported in time").isPositive();
            r.imported().poll(left, TimeUnit.NANOSECONDS);
        }
    }

    private static boolean paused(Replica r) {
        return r.runtime().pauses().of(TENANT, r.runtime().clock().epochMillis()).isPresent();
    }

    private static boolean hasKey(Replica r, String id) {
        return r.runtime().config().keys().stream().anyMatch(k -> k.id().equals(id));
    }

    @Test
    void aPauseAndAKeyMadeOnOneReplicaAreInForceOnTheOtherExactlyOnce() throws Exception {
        Replica a = replica();
        Replica b = replica();

        a.control().pause(OPS, TENANT, "incident 42", Optional.of(Instant.parse("2099-01-01T00:00:00Z")));
        a.control().createKey(OPS, new ControlPlane.KeySpec("k2", "acme", "x", List.of("p"), Optional.empty(),
                Optional.empty(), Limits.none()));

        awaitImport(b, () -> paused(b) && hasKey(b, "k2"));
        assertThat(b.runtime().pauses().of(TENANT, b.runtime().clock().epochMillis()).orElseThrow().reason())
                .isEqualTo("incident 42");
        // Each change once in each journal: the other's imported once, one's own never read back.
        assertThat(b.local().audit(10, Long.MAX_VALUE)).extracting(r -> r.action()).containsExactly("key.create", "pause");
        assertThat(a.local().audit(10, Long.MAX_VALUE)).extracting(r -> r.action()).containsExactly("key.create", "pause");

        b.control().resume(OPS, TENANT);
        awaitImport(a, () -> !paused(a));
        assertThat(b.local().audit(10, Long.MAX_VALUE)).hasSize(3);
        assertThat(a.local().audit(10, Long.MAX_VALUE)).extracting(r -> r.action())
                .containsExactly("resume", "key.create", "pause");
    }

    @Test
    void aReplicaStartedLaterBeginsWithEveryChangeTheFleetMade() {
        Replica a = replica();
        a.control().pause(OPS, TENANT, "incident 43", Optional.empty());
        a.control().createKey(OPS, new ControlPlane.KeySpec("k3", "acme", "x", List.of("p"), Optional.empty(),
                Optional.empty(), Limits.none()));

        Replica late = replica();

        // Read from Redis when the relay starts, before the replay: nothing to wait for.
        assertThat(paused(late)).isTrue();
        assertThat(hasKey(late, "k3")).isTrue();
        assertThat(late.local().audit(10, Long.MAX_VALUE)).hasSize(2);
    }

    @Test
    void replicasSharingOneLedgerDatabaseDoNotWriteAChangeTwiceIntoIt() {
        ControlJournal database = ControlJournal.inMemory();
        ControlJournal shared = new ControlJournal() {
            @Override
            public dev.sluice.runtime.control.AuditRecord append(dev.sluice.runtime.control.AuditRecord r, String state) {
                return database.append(r, state);
            }

            @Override
            public List<dev.sluice.runtime.control.AuditRecord> audit(int limit, long beforeSeq) {
                return database.audit(limit, beforeSeq);
            }

            @Override
            public List<Replayed> replay() {
                return database.replay();
            }

            @Override
            public boolean shared() {
                return true;
            }
        };
        Replica a = replica(shared);
        Replica b = replica(shared);

        a.control().pause(OPS, TENANT, "incident 44", Optional.empty());

        assertThat(b.relay().pull()).isZero();
        assertThat(a.relay().pull()).isZero();
        assertThat(database.audit(10, Long.MAX_VALUE)).hasSize(1);
        b.control().sync();
        assertThat(paused(b)).isTrue();
    }
}
