package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.limits.ShortWindow;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

    static final String FULL = """
            server: { host: 127.0.0.1, port: 9090, max_body_bytes: 1000000, max_header_bytes: 8192, upstream_timeout: 30s }
            store: { kind: memory, failure_policy: fail_open_local, replicas: 2 }
            daily_reset_zone: America/Los_Angeles
            governor: { lease_ttl: 5m }
            classes:
              interactive: { max_queue_wait: 250ms }
              batch: { max_queue_wait: 10m, max_queue_length: 500 }
            deployments:
              openai-main:
                kind: openai
                base_url: https://api.openai.com
                api_key_env: TEST_OPENAI_KEY
                scope: { organization: org-1, project: prod }
                limits: { rpm: 500, input_tpm: { amount: 200000, burst: 50000 }, concurrency: 50 }
                adaptive: { enabled: false }
              azure-east:
                kind: azure-openai
                base_url: https://east.example.com
                azure_deployment: chat-large-01
                limits: { tpm: 100000 }
            profiles:
              fast-chat:
                deployment: openai-main
                model: gpt-4o-mini
                limits: { rpm: 300 }
              big:
                deployment: azure-east
                model: my-azure-model
                tokenizer: cl100k_base
                default_max_output_tokens: 2048
            orgs:
              acme-corp:
                limits: { input_tpm: 400000 }
                tenants:
                  acme:
                    weight: 2
                    guaranteed: { input_tpm: 50000 }
                    limits: { input_tpm: 100000, daily_tokens: 5000000 }
                    teams:
                      search:
                        limits: { rpm: 200 }
                        keys:
                          key_456:
                            secret_env: TEST_ACME_KEY
                            profiles: [fast-chat]
                            class: interactive
                            max_class: critical
                            deadline: 30s
                            limits: { rpm: 60, concurrency: 10 }
                  globex:
                    teams:
                      search:
                        keys:
                          key_789: { secret: "demo-secret", class: batch, paused: true }
            """;

    static final Map<String, String> ENV = Map.of("TEST_OPENAI_KEY", "sk-upstream", "TEST_ACME_KEY", "sk-client-456");

    static SluiceConfig full() {
        return ConfigLoader.parse(FULL, "full.yaml", ENV::get);
    }

    @Test
    void readsServerStoreAndClasses() {
        SluiceConfig c = full();
        assertThat(c.server()).isEqualTo(new ServerSettings("127.0.0.1", 9090, 1_000_000, 8192, Duration.ofSeconds(30)));
        assertThat(c.store().failurePolicy()).isEqualTo(StoreSettings.FailurePolicy.FAIL_OPEN_LOCAL);
        assertThat(c.store().replicas()).isEqualTo(2);
        assertThat(c.dailyResetZone().getId()).isEqualTo("America/Los_Angeles");
        assertThat(c.leaseTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.classes().get(TrafficClass.INTERACTIVE).maxQueueWait()).isEqualTo(Duration.ofMillis(250));
        assertThat(c.classes().get(TrafficClass.INTERACTIVE).maxQueueLength()).isEqualTo(1000);
        assertThat(c.classes().get(TrafficClass.BATCH).maxQueueLength()).isEqualTo(500);
    }

    @Test
    void readsDeploymentsWithCredentialsFromTheEnvironment() {
        SluiceConfig c = full();
        DeploymentConfig d = c.deployments().get("openai-main");
        assertThat(d.kind()).isEqualTo(DeploymentKind.OPENAI);
        assertThat(d.apiKey().orElseThrow().reveal()).isEqualTo("sk-upstream");
        assertThat(d.apiKey().orElseThrow().toString()).isEqualTo("***");
        assertThat(d.limits().get(Dimension.INPUT_TOKENS).orElseThrow().burst().getAsLong()).isEqualTo(50_000);
        assertThat(d.adaptive().enabled()).isFalse();
        assertThat(d.scope()).containsEntry("project", "prod");
        DeploymentConfig az = c.deployments().get("azure-east");
        assertThat(az.apiVersion()).contains(DeploymentConfig.DEFAULT_AZURE_API_VERSION);
        assertThat(c.missingEnvironment()).isEmpty();
    }

    @Test
    void profilesSuggestATokenizerFromTheModelName() {
        SluiceConfig c = full();
        assertThat(c.profiles().get("fast-chat").tokenizer()).isEqualTo(Tokenizer.O200K_BASE);
        assertThat(c.profiles().get("big").tokenizer()).isEqualTo(Tokenizer.CL100K_BASE);
        assertThat(c.profiles().get("big").defaultMaxOutputTokens()).isEqualTo(2048);
    }

    @Test
    void keysKeepOnlyTheHashOfTheirSecret() {
        SluiceConfig c = full();
        KeyConfig k = c.keys().get(0);
        assertThat(k.id()).isEqualTo("key_456");
        assertThat(k.team()).isEqualTo("acme/search");
        assertThat(HexFormat.of().formatHex(k.secretSha256().orElseThrow()))
                .isEqualTo(HexFormat.of().formatHex(ConfigLoader.sha256("sk-client-456")));
        assertThat(k.maxClass()).isEqualTo(TrafficClass.CRITICAL);
        assertThat(k.deadline()).contains(Duration.ofSeconds(30));
        KeyConfig other = c.keys().get(1);
        assertThat(other.profiles()).containsExactly("fast-chat", "big");
        assertThat(other.trafficClass()).isEqualTo(TrafficClass.BATCH);
        assertThat(other.maxClass()).isEqualTo(TrafficClass.BATCH);
        assertThat(other.paused()).isTrue();
        assertThat(other.toString()).doesNotContain("demo-secret");
    }

    @Test
    void equallyNamedTeamsOfTwoTenantsGetTwoBuckets() {
        SluiceConfig c = full();
        assertThat(c.keys()).extracting(KeyConfig::team).containsExactly("acme/search", "globex/search");
    }

    @Test
    void governorConfigCarriesEveryLevel() {
        GovernorConfig g = full().governorConfig();
        assertThat(g.settings(Scope.of(ScopeLevel.ORGANISATION, "acme-corp")).limits().has(Dimension.INPUT_TOKENS)).isTrue();
        assertThat(g.settings(Scope.of(ScopeLevel.TENANT, "acme")).weight()).isEqualTo(2.0);
        assertThat(g.settings(Scope.of(ScopeLevel.TENANT, "acme")).guaranteed().has(Dimension.INPUT_TOKENS)).isTrue();
        assertThat(g.settings(Scope.of(ScopeLevel.TEAM, "acme/search")).limits().has(Dimension.REQUESTS)).isTrue();
        assertThat(g.settings(Scope.of(ScopeLevel.API_KEY, "key_456")).limits().has(Dimension.CONCURRENT_REQUESTS)).isTrue();
        assertThat(g.settings(Scope.of(ScopeLevel.MODEL_PROFILE, "fast-chat")).limits().has(Dimension.REQUESTS)).isTrue();
        assertThat(g.settings(Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, "openai-main")).limits().has(Dimension.REQUESTS)).isTrue();
        assertThat(g.leaseTtl()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void aMissingEnvironmentVariableIsReportedNotThrown() {
        SluiceConfig c = ConfigLoader.parse(FULL, "full.yaml", v -> null);
        assertThat(c.missingEnvironment()).containsExactly(
                "deployments.openai-main.api_key_env: environment variable TEST_OPENAI_KEY is not set",
                "key key_456: secret_env TEST_ACME_KEY is not set");
    }

    static ConfigException error(String yaml) {
        try {
            ConfigLoader.parse(yaml, "bad.yaml", ENV::get);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("expected a ConfigException");
    }

    static final String MINI = """
            deployments:
              d: { kind: openai, base_url: "http://127.0.0.1:1" }
            profiles:
              p: { deployment: d, model: m }
            """;

    @Test
    void unknownKeyNamesItsPath() {
        ConfigException e = error(MINI + "orgs:\n  o:\n    tenants:\n      t:\n        wieght: 2\n");
        assertThat(e.path()).isEqualTo("orgs.o.tenants.t.wieght");
        assertThat(e.found()).isEqualTo("an unknown key");
    }

    @Test
    void negativeLimitNamesTheLimitPath() {
        ConfigException e = error(MINI.replace("model: m }", "model: m, limits: { rpm: -5 } }"));
        assertThat(e.getMessage()).isEqualTo("profiles.p.limits.rpm: -5 (expected: > 0)");
    }

    @Test
    void burstOnAGaugeIsRefused() {
        ConfigException e = error(MINI.replace("model: m }", "model: m, limits: { concurrency: { amount: 5, burst: 9 } } }"));
        assertThat(e.path()).isEqualTo("profiles.p.limits.concurrency.burst");
    }

    private static SluiceConfig windowed(String deployment) {
        return ConfigLoader.parse(MINI.replace("base_url: \"http://127.0.0.1:1\" }",
                "base_url: \"http://127.0.0.1:1\", " + deployment + " }"), "windows.yaml", k -> null);
    }

    @Test
    void aDeploymentsWindowShapesEachRateThatNamesNoneOfItsOwn() {
        SluiceConfig c = windowed("window: { length: 100ms, burst: 1.5 }, limits: { rpm: 600, input_tpm: "
                + "{ amount: 600000, window: 10s }, output_tpm: { amount: 60000, burst: 5000 }, concurrency: 8 }");
        Limits limits = c.deployments().get("d").limits();
        assertThat(limits.get(Dimension.REQUESTS).orElseThrow().window())
                .contains(new ShortWindow(Duration.ofMillis(100), 1.5));
        assertThat(limits.get(Dimension.INPUT_TOKENS).orElseThrow().window())
                .contains(ShortWindow.of(Duration.ofSeconds(10)));
        assertThat(limits.get(Dimension.OUTPUT_TOKENS).orElseThrow().window()).isEmpty();
        assertThat(limits.get(Dimension.CONCURRENT_REQUESTS).orElseThrow().window()).isEmpty();
        // 600 a minute over 100 ms at 1.5: 1.5 requests, so 1 at once; 600,000 over 10 s: 100,000.
        assertThat(limits.get(Dimension.REQUESTS).orElseThrow().capacityAt(ScopeLevel.PROVIDER_DEPLOYMENT)).isEqualTo(1);
        assertThat(limits.get(Dimension.INPUT_TOKENS).orElseThrow().capacityAt(ScopeLevel.PROVIDER_DEPLOYMENT))
                .isEqualTo(100_000);
    }

    @Test
    void aWindowIsADurationOrALengthAndABurst() {
        SluiceConfig c = windowed("limits: { input_tpm: { amount: 60000, window: 2s } }");
        assertThat(c.deployments().get("d").limits().get(Dimension.INPUT_TOKENS).orElseThrow()
                .capacityAt(ScopeLevel.PROVIDER_DEPLOYMENT)).isEqualTo(2_000);
    }

    @Test
    void aWindowOutsideItsRangeNamesItsPath() {
        ConfigException e = error(MINI.replace("base_url: \"http://127.0.0.1:1\" }",
                "base_url: \"http://127.0.0.1:1\", window: { length: 2m } }"));
        assertThat(e.getMessage()).isEqualTo("deployments.d.window.length: PT2M (expected: between 1ms and 60s)");
        ConfigException burst = error(MINI.replace("base_url: \"http://127.0.0.1:1\" }",
                "base_url: \"http://127.0.0.1:1\", limits: { rpm: { amount: 60, window: { length: 1s, burst: 0.5 } } } }"));
        assertThat(burst.getMessage()).isEqualTo("deployments.d.limits.rpm.window.burst: 0.5 (expected: between 1 and 10)");
    }

    @Test
    void aWindowOnAGaugeIsRefused() {
        ConfigException e = error(MINI.replace("model: m }", "model: m, limits: { concurrency: { amount: 5, window: 1s } } }"));
        assertThat(e.path()).isEqualTo("profiles.p.limits.concurrency.window");
    }

    @Test
    void unknownLimiterNameIsRefused() {
        ConfigException e = error(MINI.replace("model: m }", "model: m, limits: { rps: 5 } }"));
        assertThat(e.path()).isEqualTo("profiles.p.limits.rps");
        assertThat(e.expected()).contains("input_tpm");
    }

    @Test
    void profileMustNameAnExistingDeployment() {
        ConfigException e = error(MINI.replace("deployment: d,", "deployment: nope,"));
        assertThat(e.getMessage()).isEqualTo("profiles.p.deployment: \"nope\" (expected: one of the deployments [d])");
    }

    /** {@link #MINI} with {@code keys} added to its one deployment. */
    private static String withDeploymentKeys(String keys) {
        return MINI.replace("base_url: \"http://127.0.0.1:1\" }", "base_url: \"http://127.0.0.1:1\", " + keys + " }");
    }

    /** The adaptive tuning of {@link #MINI}'s deployment with {@code keys} added to it. */
    private static dev.sluice.adapt.AdaptiveConfig tuned(String keys) {
        return ConfigLoader.parse(withDeploymentKeys(keys), "tuned.yaml", ENV::get).deployments().get("d")
                .adaptiveConfig();
    }

    @Test
    void theAdaptiveSectionSetsSheddingTheRateWindowAndTheFaultCap() {
        dev.sluice.adapt.AdaptiveConfig a = tuned("adaptive: { shed_after_refusals: 5, shed_within: 20s, "
                + "rate_window: 2s, fault_max: 30s }");
        assertThat(a.modes().shedding().refusals()).isEqualTo(5);
        assertThat(a.modes().shedding().within()).isEqualTo(Duration.ofSeconds(20));
        assertThat(a.modes().shedding().shedLast()).containsExactly(TrafficClass.INTERACTIVE);
        assertThat(a.cooldown().rateWindow()).isEqualTo(Duration.ofSeconds(2));
        assertThat(a.cooldown().faultMax()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theAdaptiveSectionSetsTheClimbByCleanTime() {
        dev.sluice.adapt.MultiplierConfig m = tuned("adaptive: { clean_recovery_after: 30s, "
                + "increase_per_clean_second: 0.002 }").multiplier();
        assertThat(m.cleanRecoveryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(m.increasePerCleanSecond()).isEqualTo(0.002);
        dev.sluice.adapt.MultiplierConfig off = tuned("adaptive: { increase_per_clean_second: 0 }").multiplier();
        assertThat(off.increasePerCleanSecond()).isEqualTo(0.0);
    }

    @Test
    void withoutTheClimbKeysTheDocumentedDefaultsApply() {
        dev.sluice.adapt.MultiplierConfig m = tuned("adaptive: { floor: 0.3 }").multiplier();
        assertThat(m.cleanRecoveryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(m.increasePerCleanSecond()).isEqualTo(0.01);
        assertThat(m.floor()).isEqualTo(0.3);
    }

    @Test
    void aClimbOutOfRangeIsRefusedWithItsPath() {
        assertThat(error(withDeploymentKeys("adaptive: { increase_per_clean_second: 1.5 }")).getMessage())
                .isEqualTo("deployments.d.adaptive.increase_per_clean_second: 1.5 (expected: in [0, 1])");
        assertThat(error(withDeploymentKeys("adaptive: { increase_per_clean_second: -0.01 }")).getMessage())
                .isEqualTo("deployments.d.adaptive.increase_per_clean_second: -0.01 (expected: in [0, 1])");
        assertThat(error(withDeploymentKeys("adaptive: { clean_recovery_after: -1s }")).getMessage())
                .isEqualTo("deployments.d.adaptive.clean_recovery_after: \"-1s\" "
                        + "(expected: a duration such as 300ms, 2s, 20m, 1h, 1d)");
    }

    @Test
    void aRampSectionSetsItsStageTiming() {
        dev.sluice.ramp.RampConfig r = tuned("ramp: { stages: [0.2, 1.0], stage_duration: 3s, min_samples: 4, "
                + "max_growth_per_minute: 0.6 }").ramp();
        assertThat(r.enabled()).isTrue();
        assertThat(r.stages()).containsExactly(0.2, 1.0);
        assertThat(r.stageDuration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(r.minSamples()).isEqualTo(4);
        assertThat(r.maxGrowthPerMinute()).isEqualTo(0.6);
    }

    @Test
    void aRampWithoutTimingTakesTheDocumentedDefaults() {
        dev.sluice.ramp.RampConfig r = tuned("ramp: {}").ramp();
        assertThat(r.stageDuration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(r.minSamples()).isEqualTo(10);
        assertThat(r.maxGrowthPerMinute()).isEqualTo(0.8);
    }

    @Test
    void aFaultCapAboveFifteenMinutesAndARampWithoutSamplesAreRefusedWithTheirPath() {
        assertThat(error(withDeploymentKeys("adaptive: { fault_max: 1h }")).getMessage())
                .isEqualTo("deployments.d.adaptive.fault_max: PT1H (expected: > 0 and <= PT15M)");
        assertThat(error(withDeploymentKeys("ramp: { min_samples: 0 }")).getMessage())
                .isEqualTo("deployments.d.ramp.min_samples: 0 (expected: >= 1)");
    }

    @Test
    void badDurationIsRefused() {
        ConfigException e = error(MINI + "server: { upstream_timeout: 5 minutes }\n");
        assertThat(e.path()).isEqualTo("server.upstream_timeout");
        assertThat(e.expected()).startsWith("a duration");
    }

    @Test
    void clientTimeoutsAndConnectionCapsAreReadAndDefaulted() {
        ServerSettings s = ConfigLoader.parse(MINI + """
                server: { header_timeout: 2s, body_timeout: 15s, idle_timeout: 30s, max_connections: 500,
                          max_connections_per_address: 20 }
                """, "t.yaml", ENV::get).server();
        assertThat(s.headerTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.bodyTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(s.idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.maxConnections()).isEqualTo(500);
        assertThat(s.maxConnectionsPerAddress()).isEqualTo(20);
        ServerSettings d = ConfigLoader.parse(MINI, "t.yaml", ENV::get).server();
        assertThat(d.headerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.bodyTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.idleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.maxConnections()).isEqualTo(10_000);
        assertThat(d.maxConnectionsPerAddress()).isEqualTo(1_000);
    }

    @Test
    void theTranslationBudgetAndTheInvalidRefundAllowanceAreReadAndDefaulted() {
        ServerSettings s = ConfigLoader.parse(MINI + """
                server: { translation_budget_bytes: 100000000, translation_wait: 5s, invalid_refunds_per_minute: 3 }
                """, "t.yaml", ENV::get).server();
        assertThat(s.translationBudgetBytes()).isEqualTo(100_000_000);
        assertThat(s.translationWait()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.invalidRefundsPerMinute()).isEqualTo(3);
        ServerSettings d = ConfigLoader.parse(MINI, "t.yaml", ENV::get).server();
        assertThat(d.translationBudgetBytes()).isEqualTo(128L * 1024 * 1024);
        assertThat(d.translationWait()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.invalidRefundsPerMinute()).isEqualTo(10);
        ServerSettings large = ConfigLoader.parse(MINI + "server: { max_answer_bytes: 500000000 }\n", "t.yaml", ENV::get)
                .server();
        assertThat(large.translationBudgetBytes()).as("never below one answer").isEqualTo(500_000_000);
    }

    @Test
    void aTranslationBudgetBelowOneAnswerIsRefused() {
        ConfigException e = error(MINI + "server: { max_answer_bytes: 2000, translation_budget_bytes: 1000 }\n");
        assertThat(e.getMessage()).isEqualTo("server.translation_budget_bytes: 1000 (expected: >= max_answer_bytes (2000))");
    }

    @Test
    void aZeroConnectionCapIsRefused() {
        ConfigException e = error(MINI + "server: { max_connections_per_address: 0 }\n");
        assertThat(e.getMessage()).isEqualTo("server.max_connections_per_address: 0 (expected: > 0)");
    }

    @Test
    void badKindListsTheKinds() {
        ConfigException e = error(MINI.replace("kind: openai", "kind: bedrock"));
        assertThat(e.getMessage()).isEqualTo("deployments.d.kind: \"bedrock\" (expected: one of [openai, azure-openai, "
                + "anthropic, gemini, openai-compatible])");
    }

    @Test
    void azureNeedsItsDeploymentName() {
        ConfigException e = error(MINI.replace("kind: openai", "kind: azure-openai"));
        assertThat(e.path()).isEqualTo("deployments.d.azure_deployment");
    }

    @Test
    void keyNeedsExactlyOneSecretSource() {
        String yaml = MINI + "orgs:\n  o:\n    tenants:\n      t:\n        teams:\n          x:\n            keys:\n"
                + "              k: { secret: a, key_sha256: " + "0".repeat(64) + " }\n";
        ConfigException e = error(yaml);
        assertThat(e.getMessage()).isEqualTo("orgs.o.tenants.t.teams.x.keys.k: 2 of them (expected: exactly one of "
                + "secret_env, key_sha256, secret)");
        assertThat(e.getMessage()).doesNotContain("a,");
    }

    @Test
    void keyIdsAreUniqueAcrossTheFile() {
        String yaml = MINI + "orgs:\n  o:\n    tenants:\n      t:\n        teams:\n          x:\n            keys:\n"
                + "              k: { secret: a }\n          y:\n            keys:\n              k: { secret: b }\n";
        assertThat(error(yaml).path()).isEqualTo("orgs.o.tenants.t.teams.y.keys.k");
    }

    @Test
    void twoKeysWithOneSecretAreRefusedWithoutShowingIt() {
        String yaml = MINI + "orgs:\n  o:\n    tenants:\n      t:\n        teams:\n          x:\n            keys:\n"
                + "              k1: { secret: same-secret }\n              k2: { secret: same-secret }\n";
        ConfigException e = error(yaml);
        assertThat(e.path()).isEqualTo("orgs.o.tenants.t.teams.x.keys.k2");
        assertThat(e.getMessage()).doesNotContain("same-secret");
    }

    @Test
    void classAboveMaxClassIsRefused() {
        String yaml = MINI + "orgs:\n  o:\n    tenants:\n      t:\n        teams:\n          x:\n            keys:\n"
                + "              k: { secret: a, class: critical, max_class: batch }\n";
        assertThat(error(yaml).getMessage()).isEqualTo(
                "orgs.o.tenants.t.teams.x.keys.k.class: critical (expected: a class no higher than max_class batch)");
    }

    @Test
    void guaranteeAboveTheLimitIsRefused() {
        String yaml = MINI + "orgs:\n  o:\n    tenants:\n      t:\n        limits: { rpm: 10 }\n"
                + "        guaranteed: { rpm: 20 }\n";
        assertThat(error(yaml).getMessage()).isEqualTo("orgs.o.tenants.t.guaranteed.rpm: 20 (expected: <= the limit 10)");
    }

    @Test
    void duplicateYamlKeysAreRefused() {
        assertThat(error(MINI + "server: { port: 1 }\nserver: { port: 2 }\n").expected()).isEqualTo("valid YAML");
    }

    @Test
    void emptyDocumentIsRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse("", "empty.yaml")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("an empty document");
    }

    @Test
    void missingFileIsAConfigException() {
        assertThatThrownBy(() -> ConfigLoader.load(java.nio.file.Path.of("/nonexistent/sluice.yaml")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("a readable YAML file");
    }

    private static final String ADMIN_BASE = """
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs: { o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-client" } } } } } } } }
            """;

    @Test
    void theAdminListenerIsOffWithoutItsSection() {
        assertThat(ConfigLoader.parse(ADMIN_BASE, "x", v -> null).admin()).isEmpty();
    }

    @Test
    void adminTokensAreHashedWithTheirScopes() {
        SluiceConfig c = ConfigLoader.parse(ADMIN_BASE + """
                admin:
                  tokens:
                    ops: { scope: admin, token_env: OPS_TOKEN }
                    viewer: { scope: read, token: "sla-read" }
                    reseller: { scope: "partner:acme", token_sha256: "%s" }
                """.formatted(HexFormat.of().formatHex(ConfigLoader.sha256("sla-partner"))), "x",
                v -> v.equals("OPS_TOKEN") ? "sla-ops" : null);
        var admin = c.admin().orElseThrow();
        assertThat(admin.host()).isEqualTo("127.0.0.1");
        assertThat(admin.port()).isEqualTo(8081);
        assertThat(admin.tokens().get("ops").scope()).isEqualTo(dev.sluice.runtime.config.AdminScope.ADMIN);
        assertThat(admin.tokens().get("ops").secretSha256().orElseThrow()).isEqualTo(ConfigLoader.sha256("sla-ops"));
        assertThat(admin.tokens().get("reseller").scope().subject()).contains("acme");
        assertThat(admin.tokens().get("viewer").toString()).doesNotContain("sla-read");
    }

    @Test
    void tracesGoNowhereUntilAnOtlpCollectorIsNamed() {
        assertThat(ConfigLoader.parse(ADMIN_BASE, "x", v -> null).tracing()).isEqualTo(TracingSettings.defaults());
        TracingSettings t = ConfigLoader.parse(ADMIN_BASE + """
                tracing: { exporter: otlp, endpoint: "http://collector:4318/v1/traces", service_name: edge }
                """, "x", v -> null).tracing();
        assertThat(t.exporter()).isEqualTo(TracingSettings.Exporter.OTLP);
        assertThat(t.endpoint()).hasToString("http://collector:4318/v1/traces");
        assertThat(t.serviceName()).isEqualTo("edge");
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + "tracing: { endpoint: \"grpc://x:4317\" }\n", "x",
                v -> null)).hasMessage("tracing.endpoint: \"grpc://x:4317\" (expected: an http or https URL)");
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + "tracing: { exporter: zipkin }\n", "x", v -> null))
                .hasMessage("tracing.exporter: \"zipkin\" (expected: one of [none, otlp])");
    }

    @Test
    void metricsNeedAReadTokenUnlessTheFileSaysNone() {
        assertThat(ConfigLoader.parse(ADMIN_BASE + "admin: {}\n", "x", v -> null).admin().orElseThrow().metricsAuth())
                .isEqualTo(AdminSettings.MetricsAuth.READ);
        assertThat(ConfigLoader.parse(ADMIN_BASE + "admin: { metrics_auth: none }\n", "x", v -> null).admin()
                .orElseThrow().metricsAuth()).isEqualTo(AdminSettings.MetricsAuth.NONE);
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + "admin: { metrics_auth: token }\n", "x", v -> null))
                .hasMessage("admin.metrics_auth: \"token\" (expected: one of [none, read])");
    }

    @Test
    void metricsCarryTenantLabelsAndNotKeyLabelsUnlessTheFileSaysOtherwise() {
        assertThat(ConfigLoader.parse(ADMIN_BASE, "x", v -> null).metrics()).isEqualTo(new MetricsSettings(true, false));
        assertThat(ConfigLoader.parse(ADMIN_BASE + "metrics: { tenant_label: false, key_label: true }\n", "x",
                v -> null).metrics()).isEqualTo(new MetricsSettings(false, true));
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + "metrics: { trace_label: true }\n", "x", v -> null))
                .hasMessageStartingWith("metrics.trace_label");
    }

    @Test
    void aPartnerScopeNamesAnOrganisationOrTenantThatExists() {
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + """
                admin: { tokens: { r: { scope: "partner:globex", token: "sla-x" } } }
                """, "x", v -> null)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("admin.tokens.r.scope: \"partner:globex\"");
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + """
                admin: { tokens: { r: { scope: owner, token: "sla-x" } } }
                """, "x", v -> null)).hasMessage(
                "admin.tokens.r.scope: \"owner\" (expected: admin, read or partner:<org or tenant id>)");
    }

    @Test
    void aClientKeyIsNeverAnAdminToken() {
        assertThatThrownBy(() -> ConfigLoader.parse(ADMIN_BASE + """
                admin: { tokens: { r: { scope: admin, token: "sk-client" } } }
                """, "x", v -> null)).hasMessageContaining("admin.tokens.r")
                .hasMessageContaining("a secret no other token or client key uses");
    }

    @Test
    void anUnsetTokenVariableIsReportedByName() {
        SluiceConfig c = ConfigLoader.parse(ADMIN_BASE + """
                admin: { tokens: { ops: { scope: admin, token_env: OPS_TOKEN } } }
                """, "x", v -> null);
        assertThat(c.missingEnvironment()).containsExactly("admin token ops: token_env OPS_TOKEN is not set");
    }
}
