package dev.sluice.gateway;

import dev.sluice.adapt.AdaptiveControllers;
import dev.sluice.estimate.EstimatorConfig;
import dev.sluice.estimate.TokenEstimator;
import dev.sluice.gateway.admin.AdminServer;
import dev.sluice.gateway.dashboard.LastMinute;
import dev.sluice.gateway.metrics.SluiceMetrics;
import dev.sluice.gateway.trace.SluiceTracing;
import dev.sluice.gateway.proxy.GatewayCore;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.ledger.Ledger;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.StoreSettings;
import dev.sluice.runtime.config.TracingSettings;
import dev.sluice.runtime.control.ControlJournal;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.request.RequestCounters;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.store.QuotaStore;
import dev.sluice.time.NanoClock;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The Sluice HTTP gateway: OpenAI-, Anthropic- and Gemini-compatible endpoints in front of the
 * runtime's request lifecycle. Start one with {@code Gateway.builder(config).start()}; it listens
 * on {@link #port()} until {@link #stop()}.
 */
public final class Gateway {

    private final Vertx vertx;
    private final boolean ownsVertx;
    private final SluiceConfig config;
    private final SluiceRuntime runtime;
    private final GatewayCore core;
    private final WakeupDriver wakeups;
    private final long adaptiveTimer;
    /** Looks for other replicas' admin changes in a shared journal; -1 without one. */
    private final long syncTimer;
    private final List<String> deployments = new ArrayList<>();
    private int port;
    private AdminServer admin;
    /** The drain once started ({@link #drain}). */
    private Future<Void> drained;
    private final Ledger ledger;
    /** The access log the configuration asks for ({@code server.access_log}); written on a thread of its own. */
    private final java.util.Optional<dev.sluice.runtime.event.AccessLog> accessLog;
    private final ControlPlane control;
    private final Optional<SluiceMetrics> metrics;
    /** The last minute of requests, for the dashboard on the admin listener; empty without one. */
    private final Optional<LastMinute> lastMinute;
    private final Optional<SluiceTracing> tracing;
    /** The last requests, for the admin listener's recent list and explanations (kept only with one). */
    private final Optional<dev.sluice.runtime.explain.RecentRequests> recent;
    /** The gateway's own alert rules, evaluated on a timer ({@code alerts:} in the configuration). */
    private final dev.sluice.gateway.alert.AlertMonitor alerts;

    /** The accept-time limit of the gateway's own Vert.x; empty on a Vert.x it was given. */
    private final Optional<AcceptLimit> acceptLimit;

    private Gateway(Builder b, Vertx vertx, Optional<AcceptLimit> acceptLimit, QuotaStore store) {
        this.vertx = vertx;
        this.acceptLimit = acceptLimit;
        this.ownsVertx = b.vertx == null;
        this.config = b.config;
        this.ledger = b.ledger;
        this.accessLog = dev.sluice.runtime.event.AccessLog.open(b.config.server().accessLog());
        // Metrics are served by the admin listener: without one, nobody could read them.
        this.metrics = config.admin().map(a -> new SluiceMetrics(config));
        List<RequestEventSink> sinks = new ArrayList<>(List.of(ledger.sink()));
        accessLog.ifPresent(sinks::add);
        metrics.ifPresent(sinks::add);
        this.lastMinute = config.admin().map(a -> new LastMinute(b.clock));
        lastMinute.ifPresent(sinks::add);
        this.recent = config.admin().map(a -> new dev.sluice.runtime.explain.RecentRequests());
        recent.ifPresent(sinks::add);
        dev.sluice.runtime.alert.AttemptTally tally = new dev.sluice.runtime.alert.AttemptTally();
        sinks.add(tally);
        this.tracing = config.tracing().exporter() == TracingSettings.Exporter.OTLP
                ? Optional.of(SluiceTracing.otlp(config.tracing())) : Optional.empty();
        tracing.ifPresent(sinks::add);
        sinks.add(b.events);
        this.runtime = SluiceRuntime.builder(config, store).clock(b.clock).estimatorConfig(b.estimatorConfig)
                .adaptive(b.adaptive).seed(b.seed).invalidRefunds(b.invalidRefunds).events(RequestEventSink.all(sinks.stream()
                        .filter(s -> s != RequestEventSink.NONE).toList()))
                // Store calls that wait on the network run on Vert.x's workers, unordered: never on an event loop.
                .workers(work -> vertx.executeBlocking(() -> {
                    work.run();
                    return null;
                }, false))
                .build();
        dev.sluice.gateway.metrics.RolloutLog.attach(runtime.rollouts());
        dev.sluice.gateway.metrics.RolloutLog.attach(runtime.warmups());
        this.control = new ControlPlane(runtime, b.journal);
        // What was changed through the admin API before the restart wins over the file for what it touched.
        control.replay();
        // Each decision of the rollouts is kept in the journal, in order, off the event loop that made it.
        control.journalRolloutDecisions(work -> vertx.executeBlocking(() -> {
            work.run();
            return null;
        }, true));
        control.journalWarmupDecisions(work -> vertx.executeBlocking(() -> {
            work.run();
            return null;
        }, true));
        metrics.ifPresent(m -> m.bind(runtime, ledger));
        this.alerts = new dev.sluice.gateway.alert.AlertMonitor(vertx, runtime, config.alerts(), tally,
                metrics.map(SluiceMetrics::registry));
        this.core = new GatewayCore(vertx, runtime);
        this.wakeups = new WakeupDriver(vertx, runtime);
        runtime.governor().onWakeup(wakeups::request);
        this.adaptiveTimer = vertx.setPeriodic(AdaptiveControllers.TICK_INTERVAL.toMillis(), id -> runtime.tick());
        this.syncTimer = !b.journal.shared() ? -1 : vertx.setPeriodic(ControlPlane.SYNC_INTERVAL.toMillis(),
                id -> vertx.executeBlocking(() -> control.sync(), false).onFailure(e -> {
                    // The database is away: this replica keeps what it has and looks again next time.
                }));
    }

    /** A builder for a gateway serving {@code config}. */
    public static Builder builder(SluiceConfig config) {
        return new Builder(config);
    }

    /** The port it listens on. */
    public int port() {
        return port;
    }

    /** {@code http://host:port}, the base URL to give SDKs (OpenAI SDKs: add {@code /v1}). */
    public String baseUrl() {
        return "http://" + config.server().host() + ":" + port;
    }

    /** The configuration in force now: the start-up one with every admin change since (and other replicas'). */
    public SluiceConfig config() {
        return runtime.config();
    }

    /** The usage ledger every request is recorded in ({@link Ledger#off()} unless one was given). */
    public Ledger ledger() {
        return ledger;
    }

    /** Where changes without a restart go: the key tree, keys, pauses; audited in its journal. */
    public ControlPlane control() {
        return control;
    }

    /** The Prometheus metrics served at the admin listener's {@code /metrics}, when it has one. */
    public Optional<SluiceMetrics> metrics() {
        return metrics;
    }

    /** The gateway's own alerts: their rules' state, the webhook, an evaluation on demand. */
    public dev.sluice.gateway.alert.AlertMonitor alerts() {
        return alerts;
    }

    /** The admin listener, when the configuration has an {@code admin:} section. */
    public Optional<AdminServer> admin() {
        return Optional.ofNullable(admin);
    }

    /** What decides about requests: governor, estimator, adaptive control, routing, events. */
    public SluiceRuntime runtime() {
        return runtime;
    }

    /** The governor: for snapshots, adaptive control ({@link QuotaGovernor#guard}, {@link QuotaGovernor#control}) and tests. */
    public QuotaGovernor governor() {
        return runtime.governor();
    }

    public TokenEstimator estimator() {
        return runtime.estimator();
    }

    /** Counts of requests, answers and reservations. */
    public RequestCounters counters() {
        return runtime.counters();
    }

    /** Bytes of whole answers held now to be translated, against {@code server.translation_budget_bytes}. */
    public long translationBytesHeld() {
        return core.translationBytesHeld();
    }

    /** Answers waiting now for room in the translation budget, their providers paused. */
    public int translationWaiting() {
        return core.translationWaiting();
    }

    public Vertx vertx() {
        return vertx;
    }

    /** The adaptive controllers (modes, multipliers, ramp stages per deployment), when adaptive control is on. */
    public Optional<AdaptiveControllers> adaptive() {
        return runtime.adaptive();
    }

    /**
     * Drains the gateway for a graceful stop: {@code /readyz} answers draining, the client and admin
     * ports stop accepting connections, and every request already taken is answered, including
     * those waiting in the governor's queue, whose wake-ups, deadlines and adaptive control keep
     * running meanwhile (a queued request is served when its capacity comes or refused at its
     * deadline, as it would have been). Completes when the last one has been answered, or after
     * the listener's grace (10 s), when what is still open is closed. The quota store stays open,
     * so that a replica of a fleet can withdraw from it afterwards; {@link #stop} closes the rest.
     * Calling it again returns the same drain.
     */
    public synchronized Future<Void> drain() {
        if (drained == null) {
            core.ready(false);
            Future<Void> all = admin == null ? Future.succeededFuture() : admin.stop().recover(e -> Future.succeededFuture());
            for (String id : deployments) {
                all = all.compose(v -> vertx.undeploy(id).recover(e -> Future.succeededFuture()));
            }
            drained = all;
        }
        return drained;
    }

    /**
     * Stops: {@link #drain drains} (when not drained yet), then stops the timers and closes what the
     * gateway created (ledger, quota store, its Vert.x instance if it made one).
     */
    public Future<Void> stop() {
        // The rest runs on a thread of its own: the ledger may take a while to write what it holds,
        // which must not block an event loop, and a Vert.x closed from one of its own event loops
        // reports its end to a loop already gone (a RejectedExecutionException on every stop).
        Promise<Void> stopped = Promise.promise();
        drain().onComplete(v -> Thread.ofPlatform().name("sluice-stop").start(() -> {
            // Every request has been answered by now: nothing waits for a wake-up any more.
            wakeups.close();
            vertx.cancelTimer(adaptiveTimer);
            alerts.close();
            vertx.cancelTimer(syncTimer);
            // Every request has been answered and recorded by now: the ledger writes what it holds, then stops.
            ledger.close();
            accessLog.ifPresent(dev.sluice.runtime.event.AccessLog::close);
            tracing.ifPresent(SluiceTracing::close);
            runtime.close();
            if (ownsVertx) {
                vertx.close().onComplete(stopped);
            } else {
                stopped.complete();
            }
        }));
        return stopped.future();
    }

    private Future<Gateway> listen(int instances) {
        // Port 0 asks for a free port; Vert.x shares a random port among listeners given the same negative port.
        int requested = config.server().port() == 0 ? -1 : config.server().port();
        // Counted now, with the event loops, the store and the ledger open: what is left is the clients'.
        ConnectionCaps caps = ConnectionCaps.of(config.server().maxConnections(),
                config.server().maxConnectionsPerAddress());
        acceptLimit.ifPresent(l -> l.limit(caps));
        GatewayVerticle first = new GatewayVerticle(core, config.server(), requested, caps);
        return vertx.deployVerticle(first).compose(id -> {
            deployments.add(id);
            port = first.actualPort();
            Future<Void> rest = Future.succeededFuture();
            for (int i = 1; i < instances; i++) {
                rest = rest.compose(v -> vertx.deployVerticle(new GatewayVerticle(core, config.server(), requested, caps),
                        new DeploymentOptions()).map(deployments::add).mapEmpty());
            }
            return rest;
        }).compose(v -> config.admin().isEmpty() ? Future.succeededFuture(this)
                : new AdminServer(vertx, config.admin().get(), control, ledger.queries(), metrics.orElseThrow(),
                        lastMinute.orElseThrow(), recent.orElseThrow(), alerts.rules()).start().map(a -> {
                    admin = a;
                    return this;
                }));
    }

    /** Builds and starts a {@link Gateway}. */
    public static final class Builder {
        private final SluiceConfig config;
        private Vertx vertx;
        private NanoClock clock = NanoClock.system();
        private RequestEventSink events = RequestEventSink.none();
        private Ledger ledger = Ledger.off();
        private QuotaStore store;
        private ControlJournal journal = ControlJournal.inMemory();
        private EstimatorConfig estimatorConfig = EstimatorConfig.defaults();
        private int instances = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        private boolean adaptive = true;
        private dev.sluice.runtime.request.InvalidRefunds invalidRefunds = dev.sluice.runtime.request.InvalidRefunds.local();
        private long seed = 1;

        private Builder(SluiceConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /**
         * The Vert.x instance to run on; by default the gateway makes (and on stop closes) its own,
         * whose acceptor closes sockets beyond the connection caps as it accepts them. On one given
         * here the caps are applied only as each connection is set up (docs/CONFIG.md, the descriptor rule).
         */
        public Builder vertx(Vertx v) {
            this.vertx = Objects.requireNonNull(v, "vertx");
            return this;
        }

        public Builder clock(NanoClock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /** Where request and attempt events go (the usage ledger, metrics, the access log). */
        public Builder events(RequestEventSink e) {
            this.events = Objects.requireNonNull(e, "events");
            return this;
        }

        /**
         * The usage ledger to record every request in ({@code Ledger.open(config.ledger())}); the
         * gateway closes it when it stops. By default none: a gateway embedded in a test writes no file.
         */
        public Builder ledger(Ledger l) {
            this.ledger = Objects.requireNonNull(l, "ledger");
            return this;
        }

        /**
         * Where changes made through the admin API are audited and kept, replayed over the file at
         * start ({@code LedgerJournal} in the ledger's database); by default in memory, lost at exit.
         */
        public Builder journal(ControlJournal j) {
            this.journal = Objects.requireNonNull(j, "journal");
            return this;
        }

        /** The quota store; by default an in-memory one (required when the configuration says redis). */
        public Builder store(QuotaStore s) {
            this.store = Objects.requireNonNull(s, "store");
            return this;
        }

        /**
         * Where the tenants' refunds of invalid requests are counted: in this process by default; a
         * fleet on Redis passes the store's ({@code RedisQuotaStore.invalidRefunds()}), so the
         * allowance ({@code server.invalid_refunds_per_minute}) is the fleet's.
         */
        public Builder invalidRefunds(dev.sluice.runtime.request.InvalidRefunds r) {
            this.invalidRefunds = Objects.requireNonNull(r, "invalidRefunds");
            return this;
        }

        public Builder estimatorConfig(EstimatorConfig c) {
            this.estimatorConfig = Objects.requireNonNull(c, "estimatorConfig");
            return this;
        }

        /**
         * Whether deployments with {@code adaptive.enabled} get an adaptive controller (default: yes).
         * Off leaves every deployment at its configured limits.
         */
        public Builder adaptive(boolean on) {
            this.adaptive = on;
            return this;
        }

        /** Seeds the adaptive controllers' random draws. */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Event loops serving requests (default: processors, at most 4). */
        public Builder instances(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("instances: " + n + " (expected: >= 1)");
            }
            this.instances = n;
            return this;
        }

        /**
         * Starts listening. Fails when an environment variable the configuration names is not set,
         * or when the configuration asks for a Redis store and none was given.
         */
        public Future<Gateway> start() {
            List<String> missing = config.missingEnvironment();
            if (!missing.isEmpty()) {
                return Future.failedFuture(new IllegalStateException("cannot serve " + config.sourceName() + ": "
                        + String.join("; ", missing)));
            }
            Optional<QuotaStore> s = Optional.ofNullable(store);
            if (s.isEmpty() && config.store().kind() == StoreSettings.Kind.REDIS) {
                return Future.failedFuture(new IllegalStateException("store.kind: redis needs a Redis quota store; "
                        + "start through 'sluice serve' or pass one to Gateway.builder(...).store(...)"));
            }
            // A Vert.x of its own closes sockets beyond the connection caps as they are accepted (AcceptLimit).
            Optional<AcceptLimit> limit = vertx != null ? Optional.empty() : Optional.of(new AcceptLimit());
            Vertx v = limit.map(l -> Vertx.builder().withTransport(l).build()).orElse(vertx);
            Gateway g = new Gateway(this, v, limit, s.orElseGet(() -> new InMemoryQuotaStore(clock, config.dailyResetZone())));
            // Loading a tokenizer's vocabulary takes seconds: do it on a worker before serving, never on an event loop.
            Future<Void> warm = v.executeBlocking(() -> {
                for (var p : config.profiles().values()) {
                    g.runtime.estimator().countTokens(p.tokenizer(), "warm up");
                }
                return null;
            });
            return warm.compose(x -> g.listen(instances)).recover(e -> {
                g.vertx.cancelTimer(g.adaptiveTimer);
                g.vertx.cancelTimer(g.syncTimer);
                g.wakeups.close();
                g.ledger.close();
                g.tracing.ifPresent(SluiceTracing::close);
                Future<Void> cleanup = vertx == null ? v.close() : Future.succeededFuture();
                return cleanup.transform(x -> Future.failedFuture(e));
            });
        }
    }
}
