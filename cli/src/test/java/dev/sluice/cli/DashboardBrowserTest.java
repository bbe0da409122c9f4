package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser: Debian's headless Chromium, driven through chromedriver, loads
 * the page from a demo gateway under the demo's traffic (plus a tenant named
 * {@code <img src=x onerror=alert(1)>} and a pause whose reason is {@code <script>alert(1)</script>}),
 * with the read token in the URL fragment. Each of the seven
 * questions, the spend against money caps (a tenant with {@code daily_cost} and {@code monthly_cost},
 * dear prices, answered requests) and the deployments show the numbers the admin API's JSON
 * holds; the hostile tenant
 * name is text; the read token's pause is refused and nothing is paused. A screenshot is kept
 * at {@code target/dashboard.png}. Skipped, saying so, where chromium or chromedriver is absent
 * (.ci/run installs both).
 */
class DashboardBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /** A tenant id (the file's ids may not hold '/'): markup that would run if parsed as HTML. */
    static final String HOSTILE = "<img src=x onerror=alert(1)>";
    /** A pause reason (free text). */
    static final String HOSTILE_REASON = "<script>alert(1)</script>";
    /** The secret of a key of a tenant with money caps, for the spend table. */
    static final String KEY_BUDGET = "sk-demo-budget";
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Rows of a table on the page: each row's data-key and its cells' data-field to text. */
    static final String ROWS = """
            return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr[data-key]')).map(function (tr) {
              var cells = {};
              tr.querySelectorAll('td[data-field]').forEach(function (td) { cells[td.dataset.field] = td.textContent; });
              return { key: tr.dataset.key, cells: cells };
            });""";

    @Test
    // Its own steps take about 15 s; starting the demo stack and Chromium on a loaded machine can take a minute more.
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void theDashboardShowsTheAdminApisNumbersLiveAndEscapesWhatItShows() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver; .ci/run does):"
                        + " the dashboard is not checked in a browser here");
        Vertx vertx = Vertx.vertx();
        DemoStack stack = DemoStack.start(vertx, 0, 0, 1, false, new PrintStream(PrintStream.nullOutputStream()),
                // Dear tokens ($1,000 and $4,000 per million on openai-main), so a few requests spend whole cents.
                yaml -> "prices:\n  openai-main: { input: 1000, output: 4000 }\n" + yaml + """
                              "%s":
                                teams:
                                  xss:
                                    keys:
                                      xss-key: { secret: "sk-demo-xss", class: interactive }
                              budgeted:
                                limits: { daily_cost: 5, monthly_cost: 100 }
                                teams:
                                  ops:
                                    keys:
                                      budget-key: { secret: "%s", class: interactive }
                        """.formatted(HOSTILE, KEY_BUDGET));
        Gateway g = stack.gateway();
        String admin = g.admin().orElseThrow().baseUrl();
        List<DemoTraffic.Client> clients = new ArrayList<>(DemoTraffic.defaults());
        clients.add(new DemoTraffic.Client(HOSTILE, "sk-demo-xss", "fast-chat", "/v1/chat/completions", 300, false));
        DemoTraffic traffic = new DemoTraffic(vertx, g.port(), clients);
        WebDriver browser = null;
        try {
            traffic.start();
            // Refusals for the bottleneck: a key of one request a second, asked three times at once.
            List<java.util.concurrent.CompletableFuture<HttpResponse<Void>>> burst = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                burst.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .header("authorization", "Bearer " + DemoStack.KEY_BURST).header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"fast-chat\",\"messages\":"
                                + "[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                        HttpResponse.BodyHandlers.discarding()));
            }
            assertThat(burst.stream().map(f -> f.join().statusCode()).filter(st -> st == 429).count()).isPositive();
            // Spend against the budgeted tenant's caps: answered requests settle their cost on its bucket.
            // The demo's provider answers some requests 429 (charged nothing): asked until three are answered.
            int answered = 0;
            for (int i = 0; i < 30 && answered < 3; i++) {
                HttpResponse<String> spent = HTTP.send(HttpRequest.newBuilder(URI.create(g.baseUrl() + "/v1/chat/completions"))
                        .header("authorization", "Bearer " + KEY_BUDGET).header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"fast-chat\",\"max_tokens\":50,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"what does a budget hold?\"}]}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(spent.statusCode()).as(spent.body()).isIn(200, 429);
                answered += spent.statusCode() == 200 ? 1 : 0;
            }
            assertThat(answered).isPositive();
            log("stack up, refusals made");
            HttpResponse<String> paused = HTTP.send(HttpRequest.newBuilder(URI.create(admin + "/admin/pauses"))
                    .header("authorization", "Bearer sla-demo-admin").header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("scope", "key:spent")
                            .put("reason", HOSTILE_REASON).put("for_seconds", 600).toString())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(paused.statusCode()).as(paused.body()).isEqualTo(201);
            browser = browser();
            browser.get(admin + "/admin/dashboard#token=" + DemoCommand.DEMO_READ_TOKEN);
            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20), Duration.ofMillis(200));
            // The page redraws its tables every two seconds: an element read during a redraw is gone; read again.
            wait.ignoring(StaleElementReferenceException.class);
            WebDriver b = browser;
            assertThat(b.getCurrentUrl()).as("the token is wiped from the address bar").doesNotContain("token");

            // Live: the page's own count grows while the traffic runs.
            log("page asked for");
            wait.until(d -> number(d, "rpm-total") >= 5);
            long seen = number(b, "rpm-total");
            wait.until(d -> number(d, "rpm-total") > seen);

            // The escaping case: the hostile tenant is a row whose text is its name, the reason is text; nothing ran.
            wait.until(d -> rows(d, "#q-tenants").stream().anyMatch(r -> HOSTILE.equals(r.get("key"))));
            assertThat(b.findElement(By.cssSelector("#q-tenants tr[data-key='" + HOSTILE + "'] td[data-field='tenant']"))
                    .getText()).isEqualTo(HOSTILE);
            wait.until(d -> d.findElement(By.id("pause-list")).getText().contains(HOSTILE_REASON));
            assertThat(((JavascriptExecutor) b).executeScript(
                    "return document.querySelectorAll('main script, main img').length")).isEqualTo(0L);
            assertNoAlert(b);

            log("live and escaped");
            traffic.stop();
            long drained = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((traffic.inFlight() > 0 || g.counters().inFlight() > 0) && System.nanoTime() < drained) {
                Thread.onSpinWait();
            }
            // Traffic has stopped, so the minute's sums hold still: the page, refreshed, shows what the API answers.
            List<String> mismatch = new ArrayList<>();
            wait.withTimeout(Duration.ofSeconds(20)).until(d -> {
                mismatch.clear();
                mismatch.addAll(compare(d, state(admin)));
                return mismatch.isEmpty();
            });
            assertThat(mismatch).isEmpty();
            log("page and API agree");
            JsonNode s = state(admin);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "dashboard-state.json"), s.toPrettyString());
            assertThat(s.path("bottlenecks").size()).as("acme is over its rate: refusals, with a deciding bucket")
                    .isPositive();
            // The spend table: the budgeted tenant's row, in dollars, against its caps, as the API holds them.
            JsonNode budget = null;
            for (JsonNode sp : s.path("spend")) {
                if (sp.path("scope").asText().equals("tenant:budgeted")) {
                    budget = sp;
                }
            }
            assertThat(budget).as("spend[] holds the budgeted tenant: " + s.path("spend")).isNotNull();
            assertThat(budget.path("today").path("cap_usd").asDouble()).isEqualTo(5.0);
            assertThat(budget.path("month").path("cap_usd").asDouble()).isEqualTo(100.0);
            assertThat(budget.path("today").path("spent_usd").asDouble()).as("answered requests at these prices")
                    .isGreaterThan(0.005);
            assertThat(budget.path("month").path("spent_usd").asDouble()).isEqualTo(budget.path("today").path("spent_usd")
                    .asDouble());
            WebElement spendRow = b.findElement(By.cssSelector("#spend tr[data-key='tenant:budgeted']"));
            assertThat(spendRow.findElement(By.cssSelector("td[data-field='today']")).getText())
                    .isEqualTo(dollars(budget.path("today"))).endsWith(" of $5.00");
            assertThat(spendRow.findElement(By.cssSelector("td[data-field='month']")).getText())
                    .isEqualTo(dollars(budget.path("month"))).endsWith(" of $100.00");
            assertThat(text(b, "bottleneck-top")).isEqualTo(s.path("bottlenecks").path(0).path("scope").asText() + " "
                    + s.path("bottlenecks").path(0).path("limiter").asText());

            // A read token changes nothing: the pause button is refused, and nothing is paused.
            b.findElement(By.cssSelector("article[data-deployment='openai-main'] button.pause")).click();
            wait.until(d -> text(d, "action-result").startsWith("Refused: HTTP 403"));
            assertThat(admin(admin, "/admin/pauses", "sla-demo-admin").path("items").findValuesAsText("scope"))
                    .containsExactly("key:spent");

            // The explain helper's panels: wired to their routes, "not available" where the route is absent.
            for (String panel : new String[] {"recent", "alerts"}) {
                boolean routed = status(admin, panel.equals("recent") ? "/admin/requests/recent" : "/admin/alerts") != 404;
                wait.until(d -> !d.findElement(By.cssSelector("#" + panel + " .unavailable")).isDisplayed() == routed);
            }
            if (status(admin, "/admin/requests/recent") != 404) {
                // A real rejection, explained: list the refusals, click one; the page shows the API's explanation.
                new org.openqa.selenium.support.ui.Select(b.findElement(By.id("recent-filter"))).selectByValue("rejected");
                String[] clicked = new String[1];
                wait.until(d -> {
                    // The list is redrawn every refresh: a row found may be gone before the click.
                    try {
                        WebElement refused = d.findElement(By.xpath("//section[@id='recent']//tr[td[@data-field="
                                + "'status' and text()='429']]"));
                        String trace = refused.getAttribute("data-key");
                        refused.click();
                        clicked[0] = trace;
                        return true;
                    } catch (org.openqa.selenium.NoSuchElementException | StaleElementReferenceException e) {
                        return false;
                    }
                });
                String trace = clicked[0];
                JsonNode why = admin(admin, "/admin/explain/" + trace, DemoCommand.DEMO_READ_TOKEN);
                wait.until(d -> text(d, "explain-sentence").equals(why.path("sentence").asText()));
                assertThat(text(b, "explain-sentence")).isNotBlank();
                if (why.path("decided_by").isObject()) {
                    assertThat(b.findElement(By.cssSelector("#explain-fields dd[data-field='decided_by.scope']")).getText())
                            .isEqualTo(why.path("decided_by").path("scope").asText());
                }
                log("a rejection explained");
            }

            Path shot = ((TakesScreenshot) b).getScreenshotAs(OutputType.FILE).toPath();
            Path kept = Path.of("target", "dashboard.png");
            Files.createDirectories(kept.getParent());
            Files.copy(shot, kept, StandardCopyOption.REPLACE_EXISTING);
            assertThat(Files.size(kept)).isPositive();
            assertNoAlert(b);
        } finally {
            if (browser != null) {
                browser.quit();
            }
            traffic.stop();
            traffic.close();
            stack.close();
            DemoCommand.await(vertx.close());
        }
    }

    static final long STARTED = System.nanoTime();

    /** When each step was reached, on stderr: the test is bounded in time, and this shows where it goes. */
    static void log(String step) {
        System.err.printf("DashboardBrowserTest: %s after %d ms%n", step, (System.nanoTime() - STARTED) / 1_000_000);
    }

    static WebDriver browser() {
        ChromeOptions o = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless=new", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,2600", "--no-first-run");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, o);
    }

    /** Every number of the seven questions and the deployments, page against API; empty when they agree. */
    static List<String> compare(WebDriver d, JsonNode s) {
        List<String> out = new ArrayList<>();
        if (!s.path("at").asText().equals(d.findElement(By.id("state-at")).getText())) {
            // The page has not drawn this very document yet; the sums still must agree.
        }
        expect(out, "requests per minute", s.path("requests_per_minute").asText(), text(d, "rpm-total"));
        same(out, d, "#q-tenants", s.path("tenants"), "tenant", "rpm", "input_tpm", "output_tpm", "rejected");
        same(out, d, "#q-profiles", s.path("profiles"), "profile", "requests", "admitted", "queued", "rejected",
                "fallbacks");
        sameKeyed(out, d, "#q-bottleneck", s.path("bottlenecks"), n -> n.path("scope").asText() + " "
                + n.path("limiter").asText(), "rejected", "queued");
        same(out, d, "#q-estimates", s.path("estimates"), "profile", "compared", "estimated_input", "actual_input",
                "estimated_output", "actual_output");
        sameKeyed(out, d, "#q-retry-after", s.path("retry_after").path("series"), n -> n.path("provider").asText() + " "
                + n.path("deployment").asText() + " " + n.path("limiter").asText(), "total", "no_hint");
        same(out, d, "#q-cache", s.path("cache_reads"), "deployment", "uncounted_per_minute", "counted_per_minute",
                "input_limit_per_minute");
        same(out, d, "#borrow-classes", s.path("borrowing").path("classes"), "class", "requests", "borrowed");
        List<Map<String, Object>> spend = rows(d, "#spend");
        for (JsonNode sp : s.path("spend")) {
            String scope = sp.path("scope").asText();
            Map<String, Object> row = spend.stream().filter(r -> scope.equals(r.get("key"))).findFirst().orElse(null);
            if (row == null) {
                out.add("#spend: no row " + scope);
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> cells = (Map<String, Object>) row.get("cells");
            expect(out, "#spend " + scope + " today", dollars(sp.path("today")), String.valueOf(cells.get("today")));
            expect(out, "#spend " + scope + " month", dollars(sp.path("month")), String.valueOf(cells.get("month")));
        }
        for (JsonNode dep : s.path("deployments")) {
            String card = "article[data-deployment='" + dep.path("deployment").asText() + "']";
            for (String f : new String[] {"mode", "provider_429s", "attempts"}) {
                expect(out, card + " " + f, dep.path(f).asText(),
                        d.findElement(By.cssSelector(card + " dd[data-field='" + f + "']")).getText());
            }
            same(out, d, card + " table.buckets", dep.path("buckets"), "dimension", "capacity");
            same(out, d, card + " table.classes", dep.path("classes"), "class", "requests", "queued", "max_wait_ms");
        }
        return out;
    }

    /**
     * A spend cell as the page writes it: "$spent of $cap" to the cent, rounded as JavaScript's
     * {@code toFixed(2)} rounds (the exact value of the double, a tie upwards), "-" without that cap.
     */
    static String dollars(JsonNode part) {
        if (part.isMissingNode() || part.isNull()) {
            return "-";
        }
        return "$" + cents(part.path("spent_usd").asDouble()) + " of $" + cents(part.path("cap_usd").asDouble());
    }

    static String cents(double usd) {
        return new java.math.BigDecimal(usd).setScale(2, java.math.RoundingMode.HALF_UP).toPlainString();
    }

    static void same(List<String> out, WebDriver d, String table, JsonNode items, String key, String... fields) {
        sameKeyed(out, d, table, items, n -> n.path(key).asText(), fields);
    }

    static void sameKeyed(List<String> out, WebDriver d, String table, JsonNode items,
            java.util.function.Function<JsonNode, String> key, String... fields) {
        List<Map<String, Object>> rows = rows(d, table);
        int shown = 0;
        for (JsonNode n : items) {
            String k = key.apply(n);
            Map<String, Object> row = rows.stream().filter(r -> k.equals(r.get("key"))).findFirst().orElse(null);
            if (row == null) {
                if (!table.equals("#q-tenants") || shown < 15) {
                    out.add(table + ": no row " + k);
                }
                continue;
            }
            shown++;
            @SuppressWarnings("unchecked")
            Map<String, Object> cells = (Map<String, Object>) row.get("cells");
            for (String f : fields) {
                expect(out, table + " " + k + " " + f, n.path(f).asText(), String.valueOf(cells.get(f)));
            }
        }
    }

    static void expect(List<String> out, String what, String api, String page) {
        if (!api.equals(page)) {
            out.add(what + ": API " + api + ", page " + page);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rows(WebDriver d, String table) {
        return (List<Map<String, Object>>) ((JavascriptExecutor) d).executeScript(ROWS, table);
    }

    static String text(WebDriver d, String id) {
        return d.findElement(By.id(id)).getText();
    }

    static long number(WebDriver d, String id) {
        try {
            return Long.parseLong(text(d, id).strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static void assertNoAlert(WebDriver d) {
        try {
            d.switchTo().alert();
            throw new AssertionError("an alert opened: the page ran a script from its data");
        } catch (NoAlertPresentException expected) {
            // the hostile name was text
        }
    }

    static JsonNode state(String admin) {
        try {
            return admin(admin, "/admin/dashboard/state", DemoCommand.DEMO_READ_TOKEN);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode admin(String admin, String path, String token) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(admin + path))
                .header("authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static int status(String admin, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(admin + path)).header("authorization", "Bearer "
                + DemoCommand.DEMO_READ_TOKEN).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
