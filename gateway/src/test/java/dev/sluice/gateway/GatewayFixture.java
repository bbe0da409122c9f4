package dev.sluice.gateway;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderLimits;
import io.vertx.core.Future;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One gateway in front of four mock providers (one per flavour), a rate-limited mock, and
 * misbehaving fake upstreams; shared by the end-to-end tests of a class as a JUnit extension:
 * {@code @RegisterExtension static final GatewayFixture f = new GatewayFixture();}. It starts
 * before the class's first test, checks after every test that each request was answered once and
 * every reservation ended, and stops after the last.
 */
final class GatewayFixture implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    static final String KEY = "sk-test-main";
    static final String KEY_TIGHT = "sk-test-tight";
    static final String KEY_DAILY = "sk-test-daily";
    static final String KEY_PAUSED = "sk-test-paused";
    static final String KEY_BATCH = "sk-test-batch";
    static final String KEY_QUEUED = "sk-test-queued";
    /** A key whose own bucket limits output tokens, so that a test can read what its requests settled. */
    static final String KEY_METERED = "sk-test-metered";
    /** Batch keys allowed one request a minute, so that a second one waits about a minute. */
    static final String KEY_SLOW = "sk-test-slow";
    static final String KEY_SLOW_DEADLINE = "sk-test-slow-deadline";

    final Vertx vertx = Vertx.vertx();
    MockProviderServer openai;
    MockProviderServer azure;
    MockProviderServer anthropic;
    MockProviderServer gemini;
    MockProviderServer limited;
    MockProviderServer flaky;
    final Map<FakeUpstream.Mode, FakeUpstream> fakes = new java.util.EnumMap<>(FakeUpstream.Mode.class);
    int closedPort;
    Gateway gateway;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final boolean adaptive;
    private final String serverExtra;
    private dev.sluice.time.NanoClock clock = dev.sluice.time.NanoClock.system();
    private dev.sluice.runtime.event.RequestEventSink events = dev.sluice.runtime.event.RequestEventSink.none();

    GatewayFixture() {
        this(true);
    }

    /** @param adaptive whether adaptive control reacts to provider signals (off to test other mechanisms alone) */
    GatewayFixture(boolean adaptive) {
        this(adaptive, "");
    }

    /**
     * @param adaptive    whether adaptive control reacts to provider signals
     * @param serverExtra more {@code server:} settings, each preceded by a comma (client timeouts, caps)
     */
    GatewayFixture(boolean adaptive, String serverExtra) {
        this.adaptive = adaptive;
        this.serverExtra = serverExtra;
    }

    /** The fixture with the gateway on {@code c} instead of the system clock (before it starts). */
    GatewayFixture clock(dev.sluice.time.NanoClock c) {
        this.clock = c;
        return this;
    }

    /** The fixture with {@code sink} given the gateway's events after its own consumers (before it starts). */
    GatewayFixture events(dev.sluice.runtime.event.RequestEventSink sink) {
        this.events = sink;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        openai = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        azure = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.AZURE_OPENAI)));
        anthropic = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.ANTHROPIC)));
        gemini = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.GEMINI)));
        // One request per 10-second window: the second is refused by the provider.
        limited = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(ProviderLimits.builder().rpm(6).build()).build()));
        // One request per one-second window, and a 429 that says to come back in 120 ms.
        flaky = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(ProviderLimits.builder().rpm(60).requestWindow(Duration.ofSeconds(1)).build())
                .retryAfter(new dev.sluice.mock.http.RetryAfterConfig(dev.sluice.mock.http.RetryAfterForm.INTEGER_SECONDS,
                        true, java.util.Optional.of(Duration.ofMillis(120)))).build()));
        for (FakeUpstream.Mode m : FakeUpstream.Mode.values()) {
            fakes.put(m, FakeUpstream.start(vertx, m));
        }
        var probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        closedPort = probe.getLocalPort();
        probe.close();
        SluiceConfig config = ConfigLoader.parse(yaml(), "fixture.yaml", name -> null);
        gateway = await(Gateway.builder(config).vertx(vertx).instances(2).adaptive(adaptive).events(events).clock(clock)
                .start());
    }

    private String yaml() {
        StringBuilder fakeDeployments = new StringBuilder();
        StringBuilder fakeProfiles = new StringBuilder();
        for (var e : fakes.entrySet()) {
            String name = "fake-" + e.getKey().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            String kind = e.getKey().kind;
            fakeDeployments.append("  ").append(name).append(": { kind: ").append(kind).append(", base_url: \"http://127.0.0.1:")
                    .append(e.getValue().port()).append("\" }\n");
            String model = switch (kind) {
                case "anthropic" -> "claude-sonnet-4";
                case "gemini" -> "gemini-2.5-flash";
                default -> "gpt-4o-mini";
            };
            fakeProfiles.append("  ").append(name).append(": { deployment: ").append(name).append(", model: ")
                    .append(model).append(" }\n");
        }
        return """
                server: { host: 127.0.0.1, port: 0, max_body_bytes: 65536, max_header_bytes: 8192, upstream_timeout: 2s%s }
                deployments:
                  oa: { kind: openai, base_url: "%s" }
                  az: { kind: azure-openai, base_url: "%s", azure_deployment: chat-1 }
                  an: { kind: anthropic, base_url: "%s" }
                  ge: { kind: gemini, base_url: "%s" }
                  limited: { kind: openai, base_url: "%s" }
                  flaky: { kind: openai, base_url: "%s" }
                  closed: { kind: openai, base_url: "http://127.0.0.1:%d" }
                %s
                profiles:
                  chat: { deployment: oa, model: gpt-4o-mini }
                  azure-chat: { deployment: az, model: gpt-4o }
                  claude: { deployment: an, model: claude-sonnet-4 }
                  gemini: { deployment: ge, model: gemini-2.5-flash }
                  gemini-embed: { deployment: ge, model: text-embedding-004, task: embedding }
                  limited: { deployment: limited, model: gpt-4o-mini }
                  flaky: { deployment: flaky, model: gpt-4o-mini }
                  closed: { deployment: closed, model: gpt-4o-mini }
                  # Two deployments: the rate-limited mock first, the healthy OpenAI mock when it cannot serve.
                  fallback: { model: gpt-4o-mini, deployments: [limited, oa] }
                  fallback-flaky: { model: gpt-4o-mini, deployments: [flaky, oa] }
                  # A fallback on another provider between them, for requests Sluice cannot translate there.
                  fallback-translated: { model: gpt-4o-mini, deployments: [limited, { deployment: an, model: claude-sonnet-4 }, oa] }
                  # A first deployment that is cut (refuses connections, resets, hangs, answers 502), the healthy one behind.
                  fallback-cut: { model: gpt-4o-mini, deployments: [closed, oa] }
                  fallback-reset: { model: gpt-4o-mini, deployments: [fake-reset, oa] }
                  fallback-hang: { model: gpt-4o-mini, deployments: [fake-hang, oa] }
                  fallback-502: { model: gpt-4o-mini, deployments: [fake-html-error, oa] }
                %s
                orgs:
                  acme-corp:
                    tenants:
                      acme:
                        limits: { rpm: 100000 }
                        teams:
                          search:
                            keys:
                              main: { secret: "%s", limits: { rpm: 100000, tpm: 100000000 }, class: interactive, max_class: critical }
                              tight: { secret: "%s", limits: { rpm: 1 } }
                              daily: { secret: "%s", limits: { daily_requests: 1 } }
                              paused: { secret: "%s", paused: true }
                              batchy: { secret: "%s", class: batch, max_class: batch }
                              queued: { secret: "%s", class: batch, max_class: batch, limits: { rpm: { amount: 600, burst: 1 } } }
                              metered: { secret: "%s", limits: { output_tpm: 100000000, input_tpm: 100000000 } }
                              slow: { secret: "%s", class: batch, max_class: batch, limits: { rpm: { amount: 1, burst: 1 } } }
                              slow-deadline: { secret: "%s", class: batch, max_class: batch, limits: { rpm: { amount: 1, burst: 1 } } }
                """.formatted(serverExtra, openai.baseUrl(), azure.baseUrl(), anthropic.baseUrl(), gemini.baseUrl(), limited.baseUrl(),
                flaky.baseUrl(), closedPort, fakeDeployments, fakeProfiles, KEY, KEY_TIGHT, KEY_DAILY, KEY_PAUSED, KEY_BATCH,
                KEY_QUEUED, KEY_METERED, KEY_SLOW, KEY_SLOW_DEADLINE);
    }

    String base() {
        return gateway.baseUrl();
    }

    HttpResponse<String> post(String path, String key, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        boolean typed = false;
        for (int i = 0; i < headers.length; i += 2) {
            typed |= headers[i].equalsIgnoreCase("content-type");
        }
        if (!typed) {
            b.header("content-type", "application/json");
        }
        if (key != null) {
            b.header("authorization", "Bearer " + key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(20)).GET();
        if (key != null) {
            b.header("authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits (bounded) until every request was answered once and every reservation ended. */
    void awaitBalanced() throws Exception {
        awaitCondition(() -> gateway.counters().balanced(), () -> "ledger not balanced: " + gateway.counters());
    }

    /** Polls {@code done} on a Vert.x timer (no sleeping test thread) for at most ten seconds. */
    void awaitCondition(java.util.function.BooleanSupplier done, java.util.function.Supplier<String> failure)
            throws Exception {
        awaitCondition(vertx, done, failure);
    }

    /** Polls {@code done} on a timer of {@code vertx} (no sleeping test thread) for at most ten seconds. */
    static void awaitCondition(Vertx vertx, java.util.function.BooleanSupplier done,
            java.util.function.Supplier<String> failure) throws Exception {
        java.util.concurrent.CompletableFuture<Boolean> result = new java.util.concurrent.CompletableFuture<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long timer = vertx.setPeriodic(5, id -> {
            if (done.getAsBoolean()) {
                result.complete(true);
            } else if (System.nanoTime() > until) {
                result.complete(false);
            }
        });
        try {
            if (!result.get(15, TimeUnit.SECONDS)) {
                throw new AssertionError(failure.get());
            }
        } finally {
            vertx.cancelTimer(timer);
        }
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        awaitBalanced();
        if (gateway.governor().store().openLeases() != 0) {
            throw new AssertionError("leases left open: " + gateway.governor().store().openLeases());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        await(gateway.stop());
        await(vertx.close());
    }
}
