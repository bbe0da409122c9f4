package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.Gateway;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code sluice admin}: one line per operation against a running gateway's admin API. */
class AdminCommandTest {

    static Vertx vertx;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        var config = ConfigLoader.parse("""
                server: { port: 0 }
                admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-cli-admin" }, v: { scope: read, token: "sla-cli-read" } } }
                deployments:
                  d: { kind: openai, base_url: "http://127.0.0.1:1" }
                  e: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles: { p: { deployment: d, model: gpt-4o-mini }, q: { deployment: d, model: gpt-4o-mini } }
                orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-cli-k" } } } } } } } }
                """, "cli-admin.yaml", v -> null);
        vertx = Vertx.vertx();
        gateway = Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).start().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        gateway.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    record Run(int status, String out, String err) {}

    static Run admin(String token, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = token == null ? Map.of("SLUICE_ADMIN_URL", gateway.admin().orElseThrow().baseUrl())
                : Map.of("SLUICE_ADMIN_URL", gateway.admin().orElseThrow().baseUrl(), "SLUICE_ADMIN_TOKEN", token);
        int status = AdminCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env::get);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void pauseAndResumeAreOneLineEach() {
        Run paused = admin("sla-cli-admin", "pause", "tenant:acme", "--reason", "incident 7", "--for", "30m");
        assertThat(paused.status()).isZero();
        assertThat(paused.out()).startsWith("paused tenant:acme (incident 7) until 20");
        assertThat(admin("sla-cli-read", "pauses").out()).contains("tenant:acme  incident 7");
        assertThat(admin("sla-cli-admin", "resume", "tenant:acme").out()).isEqualTo("resumed tenant:acme\n");
        assertThat(admin("sla-cli-admin", "pauses").out()).isEqualTo("(none)\n");
    }

    @Test
    void keysAreCreatedListedRotatedAndDeleted() {
        Run created = admin("sla-cli-admin", "key-create", "cli-k", "--tenant", "acme", "--team", "x", "--limits", "rpm=60");
        assertThat(created.status()).isZero();
        assertThat(created.out()).contains("secret: sk-sluice-");
        assertThat(admin("sla-cli-read", "keys", "--tenant", "acme").out()).contains("cli-k  acme/x").contains("\"rpm\":60");
        Run rotated = admin("sla-cli-admin", "key-rotate", "cli-k", "--overlap", "1h");
        assertThat(rotated.out()).contains("the old secret works until 20");
        assertThat(admin("sla-cli-admin", "key-delete", "cli-k").out()).isEqualTo("deleted key cli-k\n");
    }

    @Test
    void limitsReplaceAScopesLimits() {
        assertThat(admin("sla-cli-admin", "limits", "team:acme/x", "rpm=90", "daily_tokens=100000").status()).isZero();
        var limits = gateway.governor().config().settings(Scope.of(ScopeLevel.TEAM, "acme/x")).limits();
        assertThat(limits.get(Dimension.REQUESTS).orElseThrow().amount()).isEqualTo(90);
        assertThat(limits.get(Dimension.DAILY_TOKENS).orElseThrow().amount()).isEqualTo(100_000);
    }

    @Test
    void moneyBudgetsAreGivenInDollars() {
        assertThat(admin("sla-cli-admin", "limits", "tenant:acme", "daily_cost=25.50", "monthly_cost=400").status())
                .isZero();
        var limits = gateway.governor().config().settings(Scope.of(ScopeLevel.TENANT, "acme")).limits();
        assertThat(limits.get(Dimension.DAILY_COST).orElseThrow().amount()).isEqualTo(25_500_000);
        assertThat(limits.get(Dimension.MONTHLY_COST).orElseThrow().amount()).isEqualTo(400_000_000);
        assertThat(admin("sla-cli-admin", "limits", "tenant:acme", "monthly_cost=lots").err())
                .contains("expected: dollars, as monthly_cost=25.50");
    }

    @Test
    void aPriceIsSetInOneLineAndTheTableShown() {
        Run set = admin("sla-cli-admin", "price", "gpt-4o-mini", "input=0.15", "output=0.60");
        assertThat(set.status()).as(set.err()).isZero();
        assertThat(set.out()).isEqualTo("gpt-4o-mini  input 0.15  output 0.6  cache_read 0.15  ($ per million tokens)\n");
        assertThat(gateway.runtime().config().prices().of("d", "gpt-4o-mini"))
                .isEqualTo(new dev.sluice.runtime.config.Price(0.15, 0.60, 0.15));
        assertThat(admin("sla-cli-read", "prices").out()).contains("gpt-4o-mini  input 0.15");
        Run bad = admin("sla-cli-admin", "price", "gpt-4o-mini", "input=-1", "output=1");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err()).contains("422").contains("[field prices.gpt-4o-mini.input]");
    }

    @Test
    void aProfilesRoutingIsShownAndChangedOneLineEach() {
        assertThat(admin("sla-cli-read", "profiles").out())
                .contains("q  routing order  deployments d=gpt-4o-mini:1  fallback critical,interactive,eval,background");

        Run set = admin("sla-cli-admin", "profile-set", "q", "--deployments", "e=gpt-4o:3,d", "--fallback-classes",
                "interactive", "--max-cost-ratio", "1.5");

        assertThat(set.err()).isEmpty();
        assertThat(set.out()).isEqualTo("profile q  routing weight  deployments e=gpt-4o:3, d=gpt-4o-mini:1  fallback "
                + "interactive max_cost_ratio 1.5\n");
        assertThat(admin("sla-cli-read", "profile", "q").out()).contains("\n  e  openai  model gpt-4o  weight 3  region -");
        Run unbounded = admin("sla-cli-admin", "profile-set", "q", "--max-cost-ratio", "none");
        assertThat(unbounded.err()).isEmpty();
        assertThat(unbounded.out()).as("the bound removed").doesNotContain("max_cost_ratio");
        assertThat(gateway.runtime().config().profiles().get("q").fallback().maxCostRatio())
                .isEqualTo(Double.POSITIVE_INFINITY);
        Run bad = admin("sla-cli-admin", "profile-set", "q", "--deployments", "e,nowhere");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err()).startsWith("sluice admin: 422 ").contains("[field deployments[1]]");
        assertThat(admin("sla-cli-admin", "profile-set", "q").status()).isEqualTo(2);
    }

    @Test
    void theApisRefusalIsPrintedWithItsField() {
        Run r = admin("sla-cli-admin", "limits", "tenant:acme", "rpm=-1");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("sluice admin: 422 invalid_value: ").contains("[field limits.rpm]");
        assertThat(admin("sla-cli-read", "pause", "key:k", "--reason", "x").err()).contains("403");
    }

    @Test
    void theTokenComesFromTheEnvironmentOnly() {
        Run r = admin(null, "pauses");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("SLUICE_ADMIN_TOKEN");
    }

    @Test
    void usageWithoutALedgerSaysSo() {
        Run r = admin("sla-cli-read", "usage", "--since", "1h");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("ledger_off");
    }

    @Test
    void explainPrintsTheSentenceThenTheDecisionsFields() throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var answer = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(gateway.baseUrl()
                + "/v1/chat/completions")).header("authorization", "Bearer sk-cli-k").header("content-type",
                        "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        String trace = answer.headers().firstValue("x-sluice-trace-id").orElseThrow();
        Run r = explain("sla-cli-read", trace);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (r.status() != 0 && System.nanoTime() < until) { // recorded just after its answer went
            // Poll every 20 ms: a tight loop would spend the admin listener's rate limit.
            java.util.concurrent.CompletableFuture.runAsync(() -> {},
                    java.util.concurrent.CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).join();
            r = explain("sla-cli-read", trace);
        }
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("This interactive request from acme/x (key k) for p was admitted at once, then "
                + "failed with status " + answer.statusCode());
        assertThat(r.out()).contains("\ntrace:      " + trace + " at 20").contains(" (from memory)")
                .contains("\ncaller:     o > acme > acme/x > key k\n").contains("\nroute:      p on d, class interactive")
                .contains("\ndecided by: (no limiter)\n").contains("\nattempt 1:  d: never_sent")
                .doesNotContain("sk-cli-k");
        // --at goes to the route as ?at=, which checks it.
        Run badTime = explain("sla-cli-read", trace, "--at", "yesterday");
        assertThat(badTime.status()).isEqualTo(1);
        assertThat(badTime.err()).startsWith("sluice admin: 400 invalid_value: ").contains("[field at]");
        Run unknown = explain("sla-cli-read", "0af7651916cd43dd8448eb211c80319c");
        assertThat(unknown.status()).isEqualTo(1);
        assertThat(unknown.err()).startsWith("sluice admin: 404 unknown_trace: ").contains("[field trace_id]");
    }

    static Run explain(String token, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of("SLUICE_ADMIN_URL", gateway.admin().orElseThrow().baseUrl(), "SLUICE_ADMIN_TOKEN",
                token);
        int status = AdminCommand.explain(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env::get);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
