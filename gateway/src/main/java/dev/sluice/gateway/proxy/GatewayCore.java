package dev.sluice.gateway.proxy;

import dev.sluice.estimate.TokenEstimator;
import dev.sluice.gateway.ProviderFeedback;
import dev.sluice.gateway.RequestLedger;
import dev.sluice.gateway.auth.KeyRing;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.gateway.http.CallerQuota;
import dev.sluice.gateway.upstream.Origin;
import dev.sluice.gateway.upstream.UpstreamClient;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.time.NanoClock;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What every request handler shares: configuration, the governor, the estimator, the key ring,
 * per-deployment normalisers and retry budgets, feedback and the ledger. Thread-safe; one per
 * gateway, used from every event loop.
 */
public final class GatewayCore {

    final Vertx vertx;
    final SluiceConfig config;
    final QuotaGovernor governor;
    final TokenEstimator estimator;
    final KeyRing keys;
    final ProviderFeedback feedback;
    final RequestLedger ledger;
    final NanoClock clock;
    final CallerQuota quota;
    private final Map<String, Upstream> upstreams = new HashMap<>();
    private volatile boolean ready = true;

    /** Where a deployment is, how its answers are read, and how many retries it may still get. */
    record Upstream(Origin origin, SignalNormaliser normaliser, RetryBudget retries) {}

    /**
     * Whether quota store calls wait on the network (a shared Redis store). Then admissions and
     * settlements run on a worker thread, never on an event loop; the in-memory store answers in
     * microseconds and is called in place.
     */
    final boolean storeBlocks;

    public GatewayCore(Vertx vertx, SluiceConfig config, QuotaGovernor governor, TokenEstimator estimator,
            ProviderFeedback feedback, RequestLedger ledger, NanoClock clock) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.config = Objects.requireNonNull(config, "config");
        this.governor = Objects.requireNonNull(governor, "governor");
        this.estimator = Objects.requireNonNull(estimator, "estimator");
        this.feedback = Objects.requireNonNull(feedback, "feedback");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.keys = KeyRing.of(config);
        this.storeBlocks = config.store().kind() == dev.sluice.runtime.config.StoreSettings.Kind.REDIS;
        // With a shared store a reading is a network call: taken on a worker, at most every 250 ms
        // per key, so that answers never wait for their advisory quota headers.
        this.quota = storeBlocks
                ? new CallerQuota(governor, r -> vertx.executeBlocking(() -> {
                    r.run();
                    return null;
                }, false), java.time.Duration.ofMillis(250).toNanos())
                : new CallerQuota(governor);
        for (DeploymentConfig d : config.deployments().values()) {
            boolean ssl = "https".equals(d.baseUrl().getScheme());
            int port = d.baseUrl().getPort() > 0 ? d.baseUrl().getPort() : ssl ? 443 : 80;
            String host = d.baseUrl().getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1); // URI keeps an IPv6 literal's brackets
            }
            upstreams.put(d.id(), new Upstream(new Origin(host, port, ssl), new SignalNormaliser(providerKind(d.kind())),
                    RetryBudget.tenPercent()));
        }
    }

    /** Serves one request; {@code client} is the calling event loop's upstream client. */
    public void handle(HttpServerRequest request, UpstreamClient client) {
        ledger.recordStarted();
        new Exchange(this, request, client).start();
    }

    /** Whether /readyz says ready; cleared while the gateway drains for shutdown. */
    public void ready(boolean value) {
        ready = value;
    }

    boolean ready() {
        return ready;
    }

    Upstream upstream(String deployment) {
        return upstreams.get(deployment);
    }

    static ProviderKind providerKind(DeploymentKind kind) {
        return switch (kind) {
            case OPENAI -> ProviderKind.OPENAI;
            case AZURE_OPENAI -> ProviderKind.AZURE_OPENAI;
            case ANTHROPIC -> ProviderKind.ANTHROPIC;
            case GEMINI -> ProviderKind.GEMINI;
            case OPENAI_COMPATIBLE -> ProviderKind.OPENAI_COMPATIBLE;
        };
    }
}
