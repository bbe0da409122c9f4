package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.AttemptResult;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.rollout.Rollout;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutView;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rollout through the real gateway, in process, in front of two mock providers: a migration to
 * a target as large as the source reaches 100% with no provider 429s, and one to a target whose
 * real limit is far below what it declares pauses at once and rolls back while every request is
 * still answered. Bounded: at most 40 seconds and 40 000 requests each (about ten seconds when it goes as it should).
 */
class RolloutEndToEndTest {

    private static final int KEYS = 20;
    // A quiet machine answers ~1,500 a second: the three 2 s intervals plus the last one to complete need more than 8,000.
    private static final long MAX_REQUESTS = 40_000;
    private static final Duration MAX_TIME = Duration.ofSeconds(40);

    private final Vertx vertx = Vertx.vertx();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Attempts and provider 429s per deployment, from the gateway's own events. */
    private final ConcurrentHashMap<String, AtomicLong[]> attempts = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private MockProviderServer old;
    private MockProviderServer target;

    private Gateway start(ProviderLimits targetRealLimits) throws Exception {
        return start(targetRealLimits, "start: immediately");
    }

    private Gateway start(ProviderLimits targetRealLimits, String extra) throws Exception {
        old = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
        target = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(targetRealLimits).build()));
        StringBuilder keys = new StringBuilder();
        for (int i = 0; i < KEYS; i++) {
            keys.append("              k").append(i).append(": { secret: \"sk-e2e-rollout-").append(i).append("\" }\n");
        }
        var config = ConfigLoader.parse("""
                server: { host: 127.0.0.1, port: 0, upstream_timeout: 5s }
                deployments:
                  old: { kind: openai, base_url: "%s", limits: { rpm: 60000 } }
                  new: { kind: openai, base_url: "%s", limits: { rpm: 60000 } }
                profiles:
                  chat: { deployment: old, model: gpt-4o-mini }
                rollouts:
                  move:
                    profile: chat
                    to: new
                    steps: [25, 50, 100]
                    interval: 2s
                    sticky: key
                    min_requests: 5
                    rollback_after: 2
                    %s
                    thresholds: { provider_429_rate: 0.005 }
                orgs:
                  acme:
                    tenants:
                      t:
                        limits: { rpm: 600000 }
                        teams:
                          app:
                            keys:
                %s""".formatted(old.baseUrl(), target.baseUrl(), extra, keys), "rollout-e2e.yaml", v -> null);
        RequestEventSink count = new RequestEventSink() {
            @Override
            public void onAttempt(AttemptEvent e) {
                AtomicLong[] c = attempts.computeIfAbsent(e.deployment(), d -> new AtomicLong[] {new AtomicLong(),
                        new AtomicLong()});
                c[0].incrementAndGet();
                if (e.result() == AttemptResult.THROTTLED) {
                    c[1].incrementAndGet();
                }
            }

            @Override
            public void onRequest(RequestEvent e) {
            }
        };
        Gateway g = await(Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).events(count).start());
        open.add(() -> await(g.stop()));
        return g;
    }

    /** A bounded run: requests sent, and those answered 200. */
    private record Run(long sent, long answered) {}

    /** Sends chat requests from 8 clients over the keys until {@code done} holds (or the bounds). */
    private Run drive(Gateway g, BooleanSupplier done) throws Exception {
        AtomicLong sent = new AtomicLong();
        AtomicLong ok = new AtomicLong();
        long until = System.nanoTime() + MAX_TIME.toNanos();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<?>> running = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                running.add(clients.submit(() -> {
                    while (!done.getAsBoolean() && System.nanoTime() < until) {
                        long n = sent.incrementAndGet();
                        if (n > MAX_REQUESTS) {
                            return null;
                        }
                        HttpRequest r = HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                                .header("authorization", "Bearer sk-e2e-rollout-" + (n % KEYS))
                                .header("content-type", "application/json").build();
                        if (http.send(r, HttpResponse.BodyHandlers.ofString()).statusCode() == 200) {
                            ok.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (var f : running) {
                f.get(MAX_TIME.toSeconds() + 10, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        return new Run(Math.min(sent.get(), MAX_REQUESTS), ok.get());
    }

    private long attemptsOn(String deployment) {
        AtomicLong[] c = attempts.get(deployment);
        return c == null ? 0 : c[0].get();
    }

    private long throttledOn(String deployment) {
        AtomicLong[] c = attempts.get(deployment);
        return c == null ? 0 : c[1].get();
    }

    @Test
    void aMigrationToAnEqualTargetReachesAHundredPercentWithoutProvider429s() throws Exception {
        Gateway g = start(ProviderLimits.builder().rpm(60_000).build());

        Run run = drive(g, () -> g.runtime().rollouts().inspect("move").status() == Rollout.Status.COMPLETE);

        RolloutView v = g.runtime().rollouts().inspect("move");
        assertThat(v.status()).as("history: " + v.history()).isEqualTo(Rollout.Status.COMPLETE);
        assertThat(v.percent()).isEqualTo(100);
        assertThat(v.history()).extracting(RolloutDecision::action).containsSubsequence(RolloutDecision.Action.STARTED,
                RolloutDecision.Action.ADVANCED, RolloutDecision.Action.ADVANCED, RolloutDecision.Action.COMPLETED);
        assertThat(attemptsOn("new")).isPositive();
        assertThat(throttledOn("new") + throttledOn("old")).as("provider 429s").isZero();
        assertThat(run.answered()).as("every request answered").isEqualTo(run.sent());
    }

    @Test
    void aTargetWhoseRealLimitIsLowerThanDeclaredPausesThenRollsBackWhileEveryRequestIsAnswered() throws Exception {
        // Declared 60 000 a minute; really one request per second window.
        Gateway g = start(ProviderLimits.builder().rpm(60).requestWindow(Duration.ofSeconds(1)).build());

        Run run = drive(g, () -> g.runtime().rollouts().inspect("move").status() == Rollout.Status.ROLLED_BACK);

        RolloutView v = g.runtime().rollouts().inspect("move");
        assertThat(v.status()).as("history: " + v.history()).isEqualTo(Rollout.Status.ROLLED_BACK);
        assertThat(v.percent()).isZero();
        List<RolloutDecision.Action> actions = v.history().stream().map(RolloutDecision::action).toList();
        assertThat(actions).containsSubsequence(RolloutDecision.Action.STARTED, RolloutDecision.Action.PAUSED,
                RolloutDecision.Action.ROLLED_BACK);
        assertThat(v.history().get(actions.indexOf(RolloutDecision.Action.PAUSED)).reason())
                .startsWith("provider_429_rate");
        assertThat(throttledOn("new")).as("the target refused some").isPositive();
        assertThat(run.answered()).as("a refusal on the target moves back to the source").isEqualTo(run.sent());
    }

    @Test
    void aShadowPhaseCopiesASampleToTheTargetChargedToItsBucketsAndNeverToTheCaller() throws Exception {
        Gateway g = start(ProviderLimits.builder().rpm(60_000).build(), "shadow: { sample: 0.5 }");

        Run run = drive(g, () -> target.stats().totalRequests() >= 50);

        assertThat(run.answered()).as("every request answered, from the source").isEqualTo(run.sent());
        // The last copies end after their requests were answered: at most a few seconds.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (g.runtime().counters().reservationsOpen() > 0 && System.nanoTime() < until) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        assertThat(g.runtime().rollouts().inspect("move").status()).as("still pending").isEqualTo(Rollout.Status.PENDING);
        long copies = target.stats().totalRequests();
        assertThat(copies).isGreaterThanOrEqualTo(50);
        assertThat(attemptsOn("new")).as("no request of the caller's ran there").isZero();
        assertThat(old.stats().totalRequests()).isEqualTo(run.sent());
        var tenant = g.runtime().governor().bucket(dev.sluice.limits.Scope.of(dev.sluice.limits.ScopeLevel.TENANT, "t"))
                .orElseThrow().of(dev.sluice.limits.Dimension.REQUESTS).orElseThrow();
        assertThat(tenant.reserved()).as("the caller is charged its own requests only").isEqualTo(run.sent());
        var onTarget = g.runtime().governor().bucket(dev.sluice.limits.Scope.of(
                dev.sluice.limits.ScopeLevel.PROVIDER_DEPLOYMENT, "new")).orElseThrow().of(dev.sluice.limits.Dimension.REQUESTS)
                .orElseThrow();
        assertThat(onTarget.reserved()).as("the copies are charged to the target").isEqualTo(copies);
        assertThat(onTarget.open()).isZero();
        assertThat(g.runtime().counters().reservationsOpen()).isZero();
    }
}
