package dev.sluice.cli;

import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.Ledger;
import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.LatencyConfig;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.MockProviderServer;
import dev.sluice.mock.limits.ProviderFamily;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * What {@code sluice demo} runs, without its traffic: mock OpenAI, Anthropic and Gemini providers
 * on this machine and the gateway in front of them with the bundled configuration. The client
 * compatibility suite runs against the same stack.
 *
 * @param openai the mock OpenAI provider
 * @param anthropic the mock Anthropic provider
 * @param gemini the mock Gemini provider
 * @param gateway the gateway
 */
record DemoStack(MockProviderServer openai, MockProviderServer anthropic, MockProviderServer gemini, Gateway gateway) {

    /** The demo key every profile is open to. */
    static final String KEY = "sk-demo-you";
    /** One request a second: a second one at once is refused locally with a retry hint of about a second. */
    static final String KEY_BURST = "sk-demo-burst";
    /** One request a day: after it, refused until midnight, a refusal no retry can help. */
    static final String KEY_SPENT = "sk-demo-spent";

    /**
     * Starts the mocks and the gateway on {@code port} (0: a free one); when {@code port} is busy,
     * on a free port, saying so on {@code err}.
     */
    static DemoStack start(Vertx vertx, int port, PrintStream err) throws Exception {
        return start(vertx, port, 0, 1, false, err);
    }

    /**
     * As {@link #start(Vertx, int, PrintStream)}, the mock providers behaving as member {@code model}
     * of the provider family drawn from {@code seed} (0, the reference model).
     */
    static DemoStack start(Vertx vertx, int port, int model, long seed, boolean recordUsage, PrintStream err)
            throws Exception {
        return start(vertx, port, model, seed, recordUsage, err, yaml -> yaml);
    }

    /** As above, the bundled configuration's text changed by {@code edit} first (tests add tenants). */
    static DemoStack start(Vertx vertx, int port, int model, long seed, boolean recordUsage, PrintStream err,
            java.util.function.UnaryOperator<String> edit) throws Exception {
        Duration horizon = Duration.ofMinutes(10);
        // Provider limits a little above the gateway's, as a provider's real quota usually is.
        LatencyConfig latency = new LatencyConfig(Duration.ofMillis(80), 400, 8);
        MockProviderServer openai = DemoCommand.await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.OPENAI)
                .limits(ProviderLimits.openAi(600, 200_000)).latency(latency)
                .behaviour(ProviderFamily.member(seed, model, "openai", horizon, Flavour.OPENAI.facts())).build()));
        MockProviderServer anthropic = DemoCommand.await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.ANTHROPIC)
                .limits(ProviderLimits.anthropic(300, 100_000, 20_000)).latency(latency)
                .behaviour(ProviderFamily.member(seed, model, "anthropic", horizon, Flavour.ANTHROPIC.facts()))
                .build()));
        MockProviderServer gemini = DemoCommand.await(MockProviderServer.start(vertx, MockConfig.builder(Flavour.GEMINI)
                .limits(ProviderLimits.gemini(300, 200_000, 1_000_000)).latency(latency)
                .behaviour(ProviderFamily.member(seed, model, "gemini", horizon, Flavour.GEMINI.facts())).build()));
        String yaml = edit.apply(DemoCommand.resource()).replace("${OPENAI_URL}", openai.baseUrl())
                .replace("${ANTHROPIC_URL}", anthropic.baseUrl()).replace("${GEMINI_URL}", gemini.baseUrl());
        SluiceConfig config = ConfigLoader.parse(yaml, "demo.yaml (bundled)", name -> null);
        Gateway gateway;
        // The demo records its traffic where its configuration says (sluice-data/ledger.db), so that
        // 'sluice usage' and 'sluice report' have something to show afterwards.
        Ledger ledger = recordUsage ? Ledger.open(config.ledger()) : Ledger.off();
        try {
            SluiceConfig asked = config.withServer(config.server().withPort(port));
            if (port == 0) {
                asked = asked.withAdmin(asked.admin().orElseThrow().withPort(0)); // any free port: both listeners
            }
            gateway = DemoCommand.await(Gateway.builder(asked).vertx(vertx).ledger(ledger).start());
        } catch (Exception e) {
            if (port == 0) {
                throw e;
            }
            err.println("sluice demo: port " + port + " or the admin port is busy; using free ports instead");
            SluiceConfig free = config.withServer(config.server().withPort(0));
            free = free.withAdmin(free.admin().orElseThrow().withPort(0));
            gateway = DemoCommand.await(Gateway.builder(free).vertx(vertx).ledger(recordUsage
                    ? Ledger.open(config.ledger()) : Ledger.off()).start());
        }
        return new DemoStack(openai, anthropic, gemini, gateway);
    }

    /**
     * The base URL each client library wants, as the banner and the README give them: the OpenAI
     * SDKs and LangChain's ChatOpenAI append the operation to a base with {@code /v1}; the Anthropic
     * SDK and LangChain's ChatAnthropic append {@code /v1/messages} to the bare host, while
     * {@code @ai-sdk/anthropic} appends {@code /messages} to a base with {@code /v1} (Sluice takes
     * both); the Google Gen AI SDK takes the bare host and adds its API version, while
     * {@code @ai-sdk/google} wants the version in the base.
     */
    static List<String> baseUrls(String base) {
        return List.of(
                "OpenAI SDKs, LangChain ChatOpenAI, @ai-sdk/openai:    " + base + "/v1",
                "Anthropic SDKs, LangChain ChatAnthropic:             " + base + "   (@ai-sdk/anthropic: " + base + "/v1)",
                "Google Gen AI SDK (@google/genai, google-genai):     " + base + "   (@ai-sdk/google: " + base + "/v1beta)");
    }

    /** Stops the gateway, then the mocks. */
    void close() {
        DemoCommand.await(gateway.stop());
        DemoCommand.await(Future.all(openai.close(), anthropic.close(), gemini.close()));
    }
}
