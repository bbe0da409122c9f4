package dev.sluice.cli;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.LatencyConfig;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderLimits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice demo}: mock OpenAI, Anthropic and Gemini providers on this machine, the gateway in
 * front of them with a bundled configuration, synthetic traffic from a few tenants, and a live
 * summary every second. Needs no keys and no servers.
 */
final class DemoCommand {

    static final String CONFIG_RESOURCE = "/dev/sluice/cli/demo.yaml";

    private DemoCommand() {}

    static int run(Args args, PrintStream out, PrintStream err) {
        int seconds = args.integer("--seconds", 1, 86_400).orElse(0);
        int port = args.integer("--port", 0, 65535).orElse(8080);
        Vertx vertx = Vertx.vertx();
        try {
            return demo(vertx, seconds, port, out, err);
        } catch (Exception e) {
            err.println("sluice demo: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
            return 1;
        } finally {
            await(vertx.close());
        }
    }

    private static int demo(Vertx vertx, int seconds, int port, PrintStream out, PrintStream err) throws Exception {
        // Provider limits a little above the gateway's, as a provider's real quota usually is.
        LatencyConfig latency = new LatencyConfig(Duration.ofMillis(80), 400, 8);
        MockProviderServer openai = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(ProviderLimits.openAi(600, 200_000)).latency(latency).build()));
        MockProviderServer anthropic = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.ANTHROPIC)
                .limits(ProviderLimits.anthropic(300, 100_000, 20_000)).latency(latency).build()));
        MockProviderServer gemini = await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.GEMINI)
                .limits(ProviderLimits.gemini(300, 200_000, 1_000_000)).latency(latency).build()));
        String yaml = resource().replace("${OPENAI_URL}", openai.baseUrl()).replace("${ANTHROPIC_URL}", anthropic.baseUrl())
                .replace("${GEMINI_URL}", gemini.baseUrl());
        SluiceConfig config = ConfigLoader.parse(yaml, "demo.yaml (bundled)", name -> null);
        Gateway gateway;
        try {
            gateway = await(Gateway.builder(config.withServer(config.server().withPort(port))).vertx(vertx).start());
        } catch (Exception e) {
            if (port == 0) {
                throw e;
            }
            err.println("sluice demo: port " + port + " is busy; using a free port instead");
            gateway = await(Gateway.builder(config.withServer(config.server().withPort(0))).vertx(vertx).start());
        }
        String base = gateway.baseUrl();
        out.println("Sluice demo: gateway on " + base + " in front of mock OpenAI, Anthropic and Gemini providers");
        out.println("  OpenAI SDKs: base URL " + base + "/v1    Anthropic SDKs: " + base + "    Gemini: " + base);
        out.println("  Profiles: fast-chat (OpenAI), claude (Anthropic), gemini (Gemini); all reachable on /v1/chat/completions");
        out.println("  Your demo key: sk-demo-you (tenant playground, 60 rpm)");
        out.println("  Synthetic tenants: acme (sk-demo-acme, weight 2), globex (sk-demo-globex), initech (sk-demo-initech, batch)");
        out.println("  Try: curl -s " + base + "/v1/chat/completions -H 'authorization: Bearer sk-demo-you' \\");
        out.println("         -H 'content-type: application/json' -d '{\"model\":\"fast-chat\",\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"Hello\"}]}'");
        out.println(seconds > 0 ? "  Stopping after " + seconds + " s." : "  Press Ctrl-C to stop.");

        DemoTraffic traffic = new DemoTraffic(vertx, gateway.port(), DemoTraffic.defaults());
        traffic.start();
        long startNanos = System.nanoTime();
        CountDownLatch done = new CountDownLatch(1);
        Gateway g = gateway;
        long timer = vertx.setPeriodic(1000, id -> {
            long elapsed = (System.nanoTime() - startNanos) / 1_000_000_000L;
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
        out.println("Final: " + traffic.summary((System.nanoTime() - startNanos) / 1_000_000_000L, g.counters().inFlight()));
        out.println("Gateway ledger: " + g.counters());
        traffic.close();
        await(gateway.stop());
        await(Future.all(openai.close(), anthropic.close(), gemini.close()));
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is already running: nothing to remove.
        }
        return 0;
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
