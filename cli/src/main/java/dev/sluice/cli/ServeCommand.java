package dev.sluice.cli;

import dev.sluice.config.ConfigException;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.Ledger;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.ControlJournal;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.runtime.control.EditRefused;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.StoreSettings;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.store.QuotaStore;
import dev.sluice.store.redis.FailoverConfig;
import dev.sluice.store.redis.FailoverQuotaStore;
import dev.sluice.store.redis.FailurePolicy;
import dev.sluice.store.redis.FleetHeartbeat;
import dev.sluice.store.redis.FleetView;
import dev.sluice.store.redis.RedisChangeRelay;
import dev.sluice.store.redis.RedisRolloutFigures;
import dev.sluice.store.redis.RedisQuotaStore;
import dev.sluice.time.NanoClock;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import dev.sluice.store.redis.RedisStoreConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code sluice serve --config FILE}: runs the gateway until the process is stopped. */
final class ServeCommand {

    private ServeCommand() {}

    static int run(Args args, PrintStream out, PrintStream err) {
        String file = args.get("--config").orElseThrow(() -> new Args.BadArguments("--config FILE is required"));
        String watch = args.get("--watch").orElse("on");
        if (!watch.equals("on") && !watch.equals("off")) {
            throw new Args.BadArguments("--watch " + watch + " (expected: on or off)");
        }
        SluiceConfig config;
        try {
            config = ConfigLoader.load(Path.of(file));
        } catch (ConfigException e) {
            err.println(file + ": " + e.getMessage());
            return 2;
        }
        SluiceConfig asRead = config;
        var port = args.integer("--port", 0, 65535);
        if (port.isPresent()) {
            config = config.withServer(config.server().withPort(port.get()));
        }
        java.util.Optional<Serving> started = start(config, err);
        if (started.isEmpty()) {
            return 1;
        }
        Serving serving = started.get();
        Gateway g = serving.gateway();
        // A reload compares the file with itself as read now, not with --port's override.
        g.control().startedFrom(asRead);
        out.println("Sluice listening on " + g.baseUrl() + " (" + config.deployments().size() + " deployments, "
                + config.profiles().size() + " profiles, " + config.keys().size() + " keys)");
        Runnable reload = () -> {
            try {
                var done = g.control().reloadFile(Actor.CONFIG);
                SluiceConfig now = done.config();
                out.println("sluice serve: reloaded " + now.sourceName() + " (" + now.keys().size() + " keys)");
                if (!done.needsRestart().isEmpty()) {
                    err.println("sluice serve: needs_restart: " + String.join(", ", done.needsRestart())
                            + " changed in " + now.sourceName() + "; read only at start, kept as running until a restart");
                }
            } catch (EditRefused e) {
                err.println("sluice serve: reload refused: " + e.getMessage());
            }
        };
        onHangUp(reload);
        if (watch.equals("on")) {
            try {
                // A file written in place (or moved into place) is reloaded as SIGHUP would.
                ConfigWatch.start(Path.of(file), reload);
            } catch (java.io.IOException e) {
                err.println("sluice serve: cannot watch " + file + " (" + e.getMessage() + "); SIGHUP and "
                        + "POST /admin/reload still reload it");
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            serving.close();
            stopped.countDown();
        }, "sluice-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /**
     * What {@code sluice serve} runs: the gateway, and on Redis this replica's heartbeat, change
     * relay, fleet view and rollout figures. {@link #close} (SIGTERM, SIGINT, or a test's stop) first
     * drains the gateway ({@link Gateway#drain}: no new connection, every request taken answered,
     * queued ones included, for at most the listener's 10 s grace) while the replica still publishes
     * its queue, modes, rollout tallies and heartbeat, so the fleet keeps deciding with it until its
     * last request ends; then withdraws it from the fleet at once (publication and heartbeat
     * removed) and closes the store.
     */
    record Serving(Gateway gateway, java.util.Optional<FleetHeartbeat> heartbeat, java.util.Optional<FleetView> fleet,
            java.util.Optional<RedisChangeRelay> relay, java.util.Optional<RedisRolloutFigures> rolloutFigures)
            implements AutoCloseable {
        @Override
        public void close() {
            try {
                gateway.drain().toCompletionStage().toCompletableFuture().get(DRAIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception ignored) {
                // Withdrawing and stopping anyway.
            }
            rolloutFigures.ifPresent(RedisRolloutFigures::close);
            fleet.ifPresent(FleetView::close);
            relay.ifPresent(RedisChangeRelay::close);
            heartbeat.ifPresent(FleetHeartbeat::close);
            try {
                gateway.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // Shutting down anyway.
            }
        }
    }

    /** How long a stop waits for the drain: the listener's 10 s grace and a margin for its closing. */
    static final java.time.Duration DRAIN_WAIT = java.time.Duration.ofSeconds(15);

    /**
     * Starts the gateway for {@code config} as {@code sluice serve} does (ledger, admin journal, on
     * Redis the fleet's heartbeat, change relay and fleet view); empty, with the reason on
     * {@code err}, when it cannot.
     */
    static java.util.Optional<Serving> start(SluiceConfig config, PrintStream err) {
        Gateway.Builder b = Gateway.builder(config);
        ControlJournal journal = ControlJournal.inMemory();
        try {
            b.ledger(Ledger.open(config.ledger()));
            if (config.ledger().kind() != LedgerSettings.Kind.OFF) {
                // Changes made through the admin API are kept beside the usage, and replayed at start.
                journal = LedgerJournal.open(config.ledger());
            }
            b.journal(journal);
        } catch (RuntimeException e) {
            err.println("sluice serve: cannot open the usage ledger: " + e.getMessage());
            return java.util.Optional.empty();
        }
        FleetHeartbeat[] heartbeat = new FleetHeartbeat[1];
        FleetView[] fleet = new FleetView[1];
        RedisChangeRelay[] relay = new RedisChangeRelay[1];
        RedisRolloutFigures[] figures = new RedisRolloutFigures[1];
        RedisQuotaStore[] shared = new RedisQuotaStore[1];
        if (config.store().kind() == StoreSettings.Kind.REDIS) {
            try {
                RedisQuotaStore redis = connect(config);
                shared[0] = redis;
                heartbeat[0] = FleetHeartbeat.start(redis, HEARTBEAT_EVERY);
                // Admin changes reach the other replicas through Redis, whatever ledger each keeps;
                // the fleet's changes so far are read now, before the journal is replayed.
                relay[0] = RedisChangeRelay.start(redis, journal, ControlPlane.SYNC_INTERVAL.dividedBy(2));
                b.journal(relay[0]);
                b.store(redisStore(config, redis, heartbeat[0]::liveReplicas));
                // The allowance of invalid requests refunded in full is the fleet's, not each replica's.
                b.invalidRefunds(redis.invalidRefunds());
            } catch (RuntimeException e) {
                err.println("sluice serve: cannot use the Redis store: " + e.getMessage());
                return java.util.Optional.empty();
            }
        }
        Gateway g;
        try {
            g = b.start().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            err.println("sluice serve: " + cause.getMessage());
            return java.util.Optional.empty();
        }
        if (shared[0] != null) {
            // The replicas decide as one governor: queued demand and modes exchanged off the request path.
            FleetView view = FleetView.start(shared[0], g.governor(),
                    d -> g.adaptive().flatMap(a -> a.find(d)), FLEET_VIEW_EVERY);
            fleet[0] = view;
            g.runtime().fleet(peers(view, shared[0].config().replicaId()));
            // Rollouts and warm-ups are judged on every replica's figures, by one replica (RolloutFleet, WarmupFleet).
            figures[0] = RedisRolloutFigures.start(shared[0], g.runtime().rollouts(), g.runtime().warmups(),
                    FLEET_VIEW_EVERY);
            // Off the request path: on the relay's thread, as soon as it imported another replica's change.
            relay[0].whenImported(() -> g.control().sync());
        }
        return java.util.Optional.of(new Serving(g, java.util.Optional.ofNullable(heartbeat[0]),
                java.util.Optional.ofNullable(fleet[0]), java.util.Optional.ofNullable(relay[0]),
                java.util.Optional.ofNullable(figures[0])));
    }

    /**
     * Runs {@code action} on every SIGHUP, the usual "read your configuration again". The JDK's
     * signal API is not public (sun.misc, in jdk.unsupported), so it is reached reflectively: where
     * it is missing, SIGHUP keeps its default and {@code POST /admin/reload} still works.
     */
    static void onHangUp(Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object h = java.lang.reflect.Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler},
                    (proxy, method, margs) -> switch (method.getName()) {
                        case "handle" -> {
                            // Off the signal thread, which must not run user code for long.
                            Thread.ofVirtual().name("sluice-reload").start(action);
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == margs[0];
                        default -> "sluice-reload-on-hup";
                    });
            signal.getMethod("handle", signal, handler).invoke(null, signal.getConstructor(String.class).newInstance("HUP"), h);
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            // No signal API here (or HUP is taken): the API route remains.
        }
    }

    /**
     * How often a replica on Redis publishes its queued demand and modes and reads the others':
     * the fleet's decisions lag a replica's queue by at most this plus one round trip.
     */
    static final java.time.Duration FLEET_VIEW_EVERY = java.time.Duration.ofMillis(250);

    /** The admin API's view of the other replicas: what the fleet view last read. */
    static dev.sluice.runtime.FleetPeers peers(FleetView view, String self) {
        return new dev.sluice.runtime.FleetPeers() {
            @Override
            public String self() {
                return self;
            }

            @Override
            public java.util.List<Peer> peers(String deployment) {
                java.util.List<Peer> out = new java.util.ArrayList<>();
                view.lastReading().others().forEach((id, r) -> {
                    var d = r.deployments().get(deployment);
                    if (d != null) {
                        out.add(new Peer(id, d.mode().wireName(), d.queuedNanos(), d.rampStage(), d.adaptive()));
                    }
                });
                return out;
            }
        };
    }

    /** How often a replica on Redis tells the fleet it is alive. */
    static final java.time.Duration HEARTBEAT_EVERY = java.time.Duration.ofSeconds(2);

    static RedisQuotaStore connect(SluiceConfig config) {
        return RedisQuotaStore.connect(config.store().redisUri(),
                RedisStoreConfig.builder().dailyResetZone(config.dailyResetZone()).build());
    }

    /**
     * The shared Redis store behind the configured failure policy (per deployment where
     * overridden). While Redis is down, a fail-open replica holds 1/N of every limit, N being the
     * larger of {@code store.replicas} (the operator's floor) and the replicas whose heartbeats
     * Redis last reported: a fleet grown past its configured size does not over-admit.
     */
    static QuotaStore redisStore(SluiceConfig config, RedisQuotaStore redis, IntSupplier liveReplicas) {
        Map<String, FailurePolicy> perDeployment = new HashMap<>();
        for (DeploymentConfig d : config.deployments().values()) {
            d.failurePolicy().ifPresent(p -> perDeployment.put(d.id(), policy(p)));
        }
        FailoverConfig failover = new FailoverConfig(policy(config.store().failurePolicy()), perDeployment,
                FailoverConfig.DEFAULT_RETRY_AFTER, config.dailyResetZone());
        int floor = config.store().replicas();
        return new FailoverQuotaStore(redis, failover, NanoClock.system(),
                () -> Math.max(floor, liveReplicas.getAsInt()));
    }

    private static FailurePolicy policy(StoreSettings.FailurePolicy p) {
        return FailurePolicy.byWireName(p.wireName()).orElseThrow();
    }
}
