package dev.sluice.cli;

import dev.sluice.gateway.Gateway;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice demo}: mock OpenAI, Anthropic and Gemini providers on this machine, the gateway in
 * front of them with a bundled configuration, synthetic traffic from a few tenants, and a live
 * summary every second. Needs no keys and no servers.
 */
final class DemoCommand {

    static final String CONFIG_RESOURCE = "/dev/sluice/cli/demo.yaml";
    /** The demo's read-only admin token (demo.yaml): enough for the dashboard and /metrics, changes nothing. */
    static final String DEMO_READ_TOKEN = "sla-demo-read";

    private DemoCommand() {}

    static int run(Args args, PrintStream out, PrintStream err) {
        int seconds = args.integer("--seconds", 1, 86_400).orElse(0);
        int port = args.integer("--port", 0, 65535).orElse(8080);
        // --provider-model K: the mocks behave as member K of the provider family (0, the reference).
        int model = args.integer("--provider-model", 0, 1_000_000).orElse(0);
        int seed = args.integer("--seed", 0, Integer.MAX_VALUE).orElse(1);
        Vertx vertx = Vertx.vertx();
        try {
            return demo(vertx, seconds, port, model, seed, out, err);
        } catch (Exception e) {
            err.println("sluice demo: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
            return 1;
        } finally {
            await(vertx.close());
        }
    }

    private static int demo(Vertx vertx, int seconds, int port, int model, int seed, PrintStream out,
            PrintStream err) throws Exception {
        DemoStack stack = DemoStack.start(vertx, port, model, seed, true, err);
        Gateway gateway = stack.gateway();
        String base = gateway.baseUrl();
        out.println("Sluice demo: gateway on " + base + " in front of mock OpenAI, Anthropic and Gemini providers");
        out.println("  Base URLs:");
        DemoStack.baseUrls(base).forEach(line -> out.println("    " + line));
        out.println("  Profiles: fast-chat (OpenAI), claude (Anthropic), gemini (Gemini), gemini-embed (embeddings);");
        out.println("    every chat profile on /v1/chat/completions and /v1/responses, and on its provider's own routes");
        out.println("  Your demo key: " + DemoStack.KEY + " (tenant playground, 60 rpm); " + DemoStack.KEY_BURST
                + " (1 request/s) and " + DemoStack.KEY_SPENT + " (1 request/day) show refusals");
        out.println("  Synthetic tenants: acme (sk-demo-acme, weight 2), globex (sk-demo-globex), initech (sk-demo-initech, batch)");
        out.println("  Try: curl -s " + base + "/v1/chat/completions -H 'authorization: Bearer " + DemoStack.KEY + "' \\");
        out.println("         -H 'content-type: application/json' -d '{\"model\":\"fast-chat\",\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"Hello\"}]}'");
        out.println("  Client libraries against this demo: SLUICE_BASE_URL=" + base + " node clients/run.mjs");
        gateway.admin().ifPresent(a -> out.println("  Admin API: " + a.baseUrl() + "/admin (token sla-demo-admin;"
                + " read-only: sla-demo-read)"));
        gateway.admin().ifPresent(a -> out.println("  Metrics (Prometheus): curl -s -H 'authorization: Bearer sla-demo-read' "
                + a.baseUrl() + "/metrics   (Grafana: deploy/grafana/sluice.json)"));
        gateway.admin().ifPresent(a -> out.println("  Dashboard: " + dashboardUrl(a.baseUrl())
                + "   (read token " + DEMO_READ_TOKEN + ", in the fragment: never sent to the server)"));
        out.println(seconds > 0 ? "  Stopping after " + seconds + " s." : "  Press Ctrl-C to stop.");

        DemoTraffic traffic = new DemoTraffic(vertx, gateway.port(), DemoTraffic.defaults());
        traffic.start();
        long startNanos = System.nanoTime();
        CountDownLatch done = new CountDownLatch(1);
        Gateway g = gateway;
        long[] lines = {0};
        long timer = vertx.setPeriodic(1000, id -> {
            long elapsed = (System.nanoTime() - startNanos) / 1_000_000_000L;
            // The header again every 20 lines, so that it is on screen while the lines scroll.
            if (lines[0]++ % 20 == 0) {
                out.println(traffic.header() + " || deployment mode multiplier");
            }
            out.println(traffic.summary(elapsed, g.counters().inFlight()) + modes(g));
            if (seconds > 0 && elapsed >= seconds) {
                done.countDown();
            }
        });
        Thread hook = new Thread(done::countDown, "sluice-demo-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        done.await();
        vertx.cancelTimer(timer);
        traffic.stop();
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        // The clients have their answers a moment before the gateway has finished its bookkeeping for them.
        while ((traffic.inFlight() > 0 || g.counters().inFlight() > 0 || g.counters().reservationsOpen() > 0)
                && System.nanoTime() < drainUntil) {
            Thread.sleep(20);
        }
        out.println("Final:");
        out.println(traffic.header());
        out.println(traffic.summary((System.nanoTime() - startNanos) / 1_000_000_000L, g.counters().inFlight()));
        out.println("Gateway counters: " + g.counters());
        traffic.close();
        stack.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is already running: nothing to remove.
        }
        return 0;
    }

    /**
     * The dashboard with the demo's read token in the URL fragment: the page takes it from there
     * and wipes it from the address bar; a fragment is never sent to the server, so no log holds it.
     */
    static String dashboardUrl(String adminBase) {
        return adminBase + "/admin/dashboard#token=" + DEMO_READ_TOKEN;
    }

    /** Each deployment's adaptive mode and its lowest rate multiplier: {@code openai-main normal x1.00}. */
    static String modes(Gateway g) {
        StringBuilder sb = new StringBuilder();
        g.adaptive().ifPresent(a -> a.snapshots().forEach(s -> {
            double m = s.multipliers().values().stream().mapToDouble(Double::doubleValue).min().orElse(1.0);
            sb.append(sb.isEmpty() ? " ||" : ",").append(' ').append(s.deployment()).append(' ')
                    .append(s.mode().wireName()).append(String.format(" x%.2f", m));
        }));
        return sb.toString();
    }

    static String resource() throws IOException {
        try (InputStream in = DemoCommand.class.getResourceAsStream(CONFIG_RESOURCE)) {
            if (in == null) {
                throw new IOException("the bundled demo configuration " + CONFIG_RESOURCE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e.getCause() != null ? e.getCause().getMessage() : e.getMessage(), e);
        }
    }
}
