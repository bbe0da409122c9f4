package dev.sluice.gateway.proxy;

import dev.sluice.gateway.auth.KeyRing;
import dev.sluice.gateway.http.CallerQuota;
import dev.sluice.gateway.upstream.Origin;
import dev.sluice.gateway.upstream.UpstreamClient;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.deploy.DeploymentChanges;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What every request handler shares: the runtime (configuration, governor, estimator, lifecycle
 * rules, events), the key ring, and per deployment its origin and how its answers are read.
 * Thread-safe; one per gateway, used from every event loop.
 */
public final class GatewayCore {

    final Vertx vertx;
    final SluiceRuntime runtime;
    /** Made again whenever the runtime's key tree changes (the admin API, a reload). */
    volatile KeyRing keys;
    final NanoClock clock;
    final CallerQuota quota;
    /** The bytes of whole answers held to be translated, over every event loop ({@code server.translation_budget_bytes}, read at start). */
    final TranslationBudget translation;
    /** By deployment id, the version in force; swapped when a change replaces one, dropped once a removed one closes. */
    private final Map<String, Upstream> upstreams = new ConcurrentHashMap<>();
    private volatile boolean ready = true;

    /** Where a deployment is and how its answers are read, for the version {@code of}. */
    record Upstream(DeploymentConfig of, Origin origin, SignalNormaliser normaliser) {}

    public GatewayCore(Vertx vertx, SluiceRuntime runtime) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        SluiceConfig config = runtime.config();
        this.clock = runtime.clock();
        this.translation = new TranslationBudget(config.server().translationBudgetBytes());
        this.keys = KeyRing.of(config, runtime.retiredSecrets().valid(clock.epochMillis()));
        runtime.onChange(next -> keys = KeyRing.of(next, runtime.retiredSecrets().valid(clock.epochMillis())));
        // With a shared store a reading is a network call: taken on a worker, at most every 250 ms
        // per key, so that answers never wait for their advisory quota headers.
        this.quota = runtime.storeCalls().offloaded()
                ? new CallerQuota(runtime.governor(), r -> vertx.executeBlocking(() -> {
                    r.run();
                    return null;
                }, false), java.time.Duration.ofMillis(250).toNanos())
                : new CallerQuota(runtime.governor());
        for (DeploymentConfig d : config.deployments().values()) {
            upstreams.put(d.id(), upstreamOf(d));
        }
        // Deployments added or replaced by a change get their upstream at once; one changed in place keeps its own.
        runtime.onChange(next -> next.deployments().values().forEach(d -> upstreams.compute(d.id(), (id, u) ->
                u == null || !DeploymentChanges.sameConnection(u.of(), d) ? upstreamOf(d)
                        : new Upstream(d, u.origin(), u.normaliser()))));
        // A removed deployment's upstream goes once its last attempt in flight has ended.
        runtime.deployments().onClosed(d -> upstreams.computeIfPresent(d.id(),
                (id, u) -> runtime.config().deployments().containsKey(id) ? u : null));
    }

    private static Upstream upstreamOf(DeploymentConfig d) {
        boolean ssl = "https".equals(d.baseUrl().getScheme());
        int port = d.baseUrl().getPort() > 0 ? d.baseUrl().getPort() : ssl ? 443 : 80;
        String host = d.baseUrl().getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1); // URI keeps an IPv6 literal's brackets
        }
        return new Upstream(d, new Origin(host, port, ssl), new SignalNormaliser(d.kind().providerKind()));
    }

    /**
     * The configuration in force now, never the one the gateway started with: the admin API and
     * other replicas change profiles, keys and limits while it runs.
     */
    SluiceConfig config() {
        return runtime.config();
    }

    /** Serves one request; {@code client} is the calling event loop's upstream client. */
    public void handle(HttpServerRequest request, UpstreamClient client) {
        serve(new ClientRequest(this, request, client), java.util.Optional.empty());
    }

    /** Answers one request with {@code why} (in its provider's shape) instead of serving it. */
    public void refuse(HttpServerRequest request, UpstreamClient client, dev.sluice.gateway.http.MalformedRequest why) {
        serve(new ClientRequest(this, request, client), java.util.Optional.of(why));
    }

    private static void serve(ClientRequest r, java.util.Optional<dev.sluice.gateway.http.MalformedRequest> refused) {
        try {
            r.start(refused);
        } catch (RuntimeException e) {
            r.internalError(e);
        }
    }

    /** Whether /readyz says ready; cleared while the gateway drains for shutdown. */
    public void ready(boolean value) {
        ready = value;
    }

    boolean ready() {
        return ready;
    }

    /**
     * The upstream of version {@code d} of a deployment: the one in force, or, for an attempt
     * admitted on a version a change replaced or removed since, one made for that version (its
     * attempt runs where it was admitted to).
     */
    Upstream upstream(DeploymentConfig d) {
        Upstream u = upstreams.get(d.id());
        if (u != null && (u.of() == d || DeploymentChanges.sameConnection(u.of(), d))) {
            return u;
        }
        return upstreamOf(d);
    }

    /** Bytes of whole answers held now to be translated, over every event loop. */
    public long translationBytesHeld() {
        return translation.held();
    }

    /** Answers waiting now for room in the translation budget. */
    public int translationWaiting() {
        return translation.waiting();
    }
}
