package dev.sluice.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.http.RetryAfterConfig;
import dev.sluice.mock.http.RetryAfterForm;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard and the alert rules in deploy/, against the real thing: promtool checks and tests
 * the rules, and a real Prometheus (Debian's {@code prometheus} package, which .ci/run installs)
 * scrapes a gateway under a bounded load with the read token, evaluates the rules, and answers
 * every query of every dashboard panel with data. Skipped, saying so, where Prometheus is not installed.
 */
class PrometheusDashboardTest {

    static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path tmp;

    static Optional<Path> binary(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    static Path require(String name) {
        Optional<Path> p = binary(name);
        assumeTrue(p.isPresent(), name + " is not installed (apt-get install -y prometheus; .ci/run does): "
                + "the dashboard and alert rules are not checked against a real Prometheus here");
        return p.get();
    }

    static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
        return out;
    }

    @Test
    void theAlertRulesPassPromtoolsCheckAndTheirOwnTests() throws Exception {
        Path promtool = require("promtool");
        Path dir = DEPLOY.resolve("prometheus");
        assertThat(run(dir, promtool.toString(), "check", "rules", "alerts.yml")).contains("SUCCESS: 8 rules found");
        assertThat(run(dir, promtool.toString(), "test", "rules", "alerts_test.yml")).contains("SUCCESS");
    }

    /** Every {@code expr} of every panel of the dashboard, by panel title and target. */
    static Map<String, String> panelQueries() throws IOException {
        JsonNode d = JSON.readTree(DEPLOY.resolve("grafana/sluice.json").toFile());
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                out.put(p.path("title").asText() + " [" + t.path("refId").asText() + "]", t.path("expr").asText());
            }
        }
        return out;
    }

    @Test
    void everyPanelOfTheDashboardShowsDataFromARealPrometheusScrapingAGatewayUnderLoad() throws Exception {
        Path prometheus = require("prometheus");
        Map<String, String> queries = panelQueries();
        assertThat(queries).hasSizeGreaterThan(25);

        Vertx vertx = Vertx.vertx();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        Process server = null;
        Gateway gateway = null;
        List<MockProviderServer> mocks = new ArrayList<>();
        try {
            MockProviderServer roomy = await(MockProviderServer.start(vertx, MockConfig.defaults(Flavour.OPENAI)));
            // One request per one-second window at the provider, and a 429 that says to come back in 120 ms.
            MockProviderServer tight = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                    .limits(ProviderLimits.builder().rpm(60).requestWindow(Duration.ofSeconds(1)).build())
                    .retryAfter(new RetryAfterConfig(RetryAfterForm.INTEGER_SECONDS, true,
                            Optional.of(Duration.ofMillis(120)))).build()));
            mocks.add(roomy);
            mocks.add(tight);
            SluiceConfig config = ConfigLoader.parse("""
                    server: { port: 0 }
                    admin:
                      port: 0
                      tokens: { scraper: { scope: read, token: "sla-test-scrape" } }
                    deployments:
                      main: { kind: openai, base_url: "%s", limits: { rpm: 6000, tpm: 10000000 } }
                      # Adaptive control off here, so that every request reaches the provider and meets its 429s.
                      squeezed: { kind: openai, base_url: "%s", limits: { rpm: 6000 }, adaptive: { enabled: false } }
                    profiles:
                      chat: { deployment: main, model: gpt-4o-mini }
                      squeezed: { deployment: squeezed, model: gpt-4o }
                    orgs:
                      o:
                        tenants:
                          acme:
                            teams: { t: { keys: { a: { secret: "sk-acme" }, one: { secret: "sk-one", limits: { rpm: 1 } } } } }
                          globex:
                            teams: { t: { keys: { g: { secret: "sk-globex", class: batch, max_class: batch,
                                limits: { rpm: { amount: 600, burst: 1 } } } } } }
                    """.formatted(roomy.baseUrl(), tight.baseUrl()), "dashboard.yaml", v -> null);
            gateway = await(Gateway.builder(config).vertx(vertx).instances(1).start());

            int port = freePort();
            Path conf = tmp.resolve("prometheus.yml");
            Files.writeString(conf, """
                    global: { scrape_interval: 1s, evaluation_interval: 1s }
                    rule_files: ["%s"]
                    scrape_configs:
                      - job_name: sluice
                        static_configs: [{ targets: ["127.0.0.1:%d"] }]
                        authorization: { credentials: "sla-test-scrape" }
                    """.formatted(DEPLOY.resolve("prometheus/alerts.yml"), gateway.admin().orElseThrow().port()));
            server = new ProcessBuilder(prometheus.toString(), "--config.file=" + conf,
                    "--storage.tsdb.path=" + tmp.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--log.level=warn").redirectErrorStream(true).redirectOutput(tmp.resolve("prometheus.log").toFile())
                    .start();
            String api = "http://127.0.0.1:" + port;

            // Load in rounds of 24 requests on 4 threads until every query has data (a minute at most):
            // each round is the pacing, so no test thread sleeps.
            String base = gateway.baseUrl();
            Map<String, String> missing = new LinkedHashMap<>(queries);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            int rounds = 0;
            while (!missing.isEmpty() && System.nanoTime() < deadline) {
                List<CompletableFuture<Integer>> round = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-acme", "chat", false), clients));
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-acme", "chat", true), clients));
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-globex", "chat", false), clients));
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-one", "chat", false), clients));
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-acme", "squeezed", false), clients));
                    round.add(CompletableFuture.supplyAsync(() -> chat(base, "sk-globex", "squeezed", true), clients));
                }
                CompletableFuture.allOf(round.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                rounds++;
                missing.entrySet().removeIf(e -> hasData(api, e.getValue()));
            }
            assertThat(missing).as("panel queries without data after " + rounds + " rounds; Prometheus log:\n"
                    + Files.readString(tmp.resolve("prometheus.log")) + "\nSluice's metrics:\n"
                    + gateway.metrics().orElseThrow().scrape()).isEmpty();
            assertThat(hasData(api, "up{job=\"sluice\"} == 1")).as("scraped with the read token").isTrue();
            assertThat(new Scrape(gateway.metrics().orElseThrow().scrape()).value("sluice_metrics_failures_total"))
                    .as("every event counted").hasValue(0);

            JsonNode rules = get(api + "/api/v1/rules").path("data").path("groups").get(0).path("rules");
            assertThat(rules).hasSize(8);
            for (JsonNode r : rules) {
                assertThat(r.path("health").asText()).as(r.path("name").asText() + ": " + r.path("lastError"))
                        .isEqualTo("ok");
            }
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor(20, TimeUnit.SECONDS);
            }
            clients.shutdownNow();
            if (gateway != null) {
                await(gateway.stop());
            }
            for (MockProviderServer m : mocks) {
                await(m.close());
            }
            await(vertx.close());
        }
    }

    static int chat(String base, String key, String model, boolean stream) {
        String body = "{\"model\":\"" + model + "\",\"stream\":" + stream
                + ",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"Say hello to the dashboard\"}]}";
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/chat/completions"))
                    .header("authorization", "Bearer " + key).header("content-type", "application/json")
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /** Whether {@code query} answers at least one sample that is a number (not NaN) now. */
    static boolean hasData(String api, String query) {
        try {
            JsonNode r = get(api + "/api/v1/query?query=" + encode(query));
            if (!"success".equals(r.path("status").asText())) {
                return false;
            }
            for (JsonNode sample : r.path("data").path("result")) {
                if (!"NaN".equals(sample.path("value").get(1).asText())) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false; // not up yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static JsonNode get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
