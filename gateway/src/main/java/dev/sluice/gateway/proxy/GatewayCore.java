package dev.sluice.gateway.proxy;

import dev.sluice.gateway.auth.KeyRing;
import dev.sluice.gateway.http.CallerQuota;
import dev.sluice.gateway.upstream.Origin;
import dev.sluice.gateway.upstream.UpstreamClient;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
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
    private final Map<String, Upstream> upstreams = new HashMap<>();
    private volatile boolean ready = true;

    /** Where a deployment is and how its answers are read. */
    record Upstream(Origin origin, SignalNormaliser normaliser) {}

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
            boolean ssl = "https".equals(d.baseUrl().getScheme());
            int port = d.baseUrl().getPort() > 0 ? d.baseUrl().getPort() : ssl ? 443 : 80;
            String host = d.baseUrl().getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // URI keeps an IPv6 literal's brackets
            }
            upstreams.put(d.id(), new Upstream(new Origin(host, port, ssl), new SignalNormaliser(d.kind().providerKind())));
        }
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

    /** Bytes of whole answers held now to be translated, over every event loop. */
    public long translationBytesHeld() {
        return translation.held();
    }

    /** Answers waiting now for room in the translation budget. */
    public int translationWaiting() {
        return translation.waiting();
    }

    Upstream upstream(String deployment) {
        return upstreams.get(deployment);
    }
}
