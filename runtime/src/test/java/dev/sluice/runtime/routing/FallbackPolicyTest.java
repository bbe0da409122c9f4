package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.FallbackSettings;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestNeeds;
import dev.sluice.runtime.request.RequestPlan;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fallback policy, a rule per test: from {@code oa} (OpenAI, eastus) to the others. */
class FallbackPolicyTest {

    private static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              oa: { kind: openai, base_url: "http://127.0.0.1:1",
                    capabilities: { region: eastus, retention: limited, relative_cost: 2 } }
              az: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat,
                    capabilities: { region: eastus, retention: limited, context_window: 32000, max_output_tokens: 4096,
                                    relative_cost: 2 } }
              az-west: { kind: azure-openai, base_url: "http://127.0.0.1:3", azure_deployment: chat,
                         capabilities: { region: westus, retention: limited, relative_cost: 2 } }
              cheap: { kind: openai-compatible, base_url: "http://127.0.0.1:4",
                       capabilities: { region: eastus, retention: standard, tools: false, vision: false, json_schema: false,
                                       parallel_tools: false, relative_cost: 1 } }
              pricey: { kind: openai, base_url: "http://127.0.0.1:5",
                        capabilities: { region: eastus, retention: zero, relative_cost: 7 } }
              claude: { kind: anthropic, base_url: "http://127.0.0.1:6",
                        capabilities: { region: eastus, retention: limited, relative_cost: 2 } }
              gem: { kind: gemini, base_url: "http://127.0.0.1:7",
                     capabilities: { region: eastus, retention: limited, relative_cost: 2 } }
            profiles:
              chat: { model: gpt-4o, deployments: [oa, az, az-west, cheap, pricey, { deployment: claude, model: claude-sonnet-4 },
                                            { deployment: gem, model: gemini-2.5-flash }] }
            """, "policy.yaml", name -> null);

    private static final FallbackSettings DEFAULTS = FallbackSettings.DEFAULTS;

    private static RequestPlan plan(TrafficClass c, String operation, RequestNeeds needs) {
        return new RequestPlan("t", operation, new Caller("o", "acme", "team", "key"), CONFIG.profiles().get("chat"), c,
                AdmissionRequest.NO_DEADLINE, new TokenEstimate(1_000, 200, 0, 1_000, 1_000, Tokenizer.O200K_BASE), false,
                needs);
    }

    private static RequestPlan chat(RequestNeeds needs) {
        return plan(TrafficClass.INTERACTIVE, "openai.chat", needs);
    }

    private static final RequestNeeds TEXT = RequestNeeds.text(1_000, 500);

    private static FallbackPolicy.Verdict judge(RequestPlan plan, String to) {
        return judge(plan, Optional.empty(), DEFAULTS, to);
    }

    private static FallbackPolicy.Verdict judge(RequestPlan plan, Optional<String> region, FallbackSettings s, String to) {
        DeploymentConfig from = CONFIG.deployments().get("oa");
        return FallbackPolicy.judge(plan, region, s, from, CONFIG.deployments().get(to));
    }

    private static String rule(FallbackPolicy.Verdict v) {
        assertThat(v).isInstanceOf(FallbackPolicy.Verdict.Forbidden.class);
        return ((FallbackPolicy.Verdict.Forbidden) v).rule();
    }

    @Test
    void anInteractiveTextRequestMayMoveToASameCapabilityDeploymentInTheSameRegion() {
        assertThat(judge(chat(TEXT), "az")).isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void batchNeverFallsBackByDefault() {
        FallbackPolicy.Verdict v = judge(plan(TrafficClass.BATCH, "openai.chat", TEXT), "az");

        assertThat(rule(v)).isEqualTo("class");
        assertThat(((FallbackPolicy.Verdict.Forbidden) v).reason()).isEqualTo(
                "batch requests of profile chat never run on another deployment");
    }

    @Test
    void aProfileMayLetBatchFallBack() {
        FallbackSettings all = new FallbackSettings(EnumSet.allOf(TrafficClass.class), Double.POSITIVE_INFINITY, false);

        assertThat(judge(plan(TrafficClass.BATCH, "openai.chat", TEXT), Optional.empty(), all, "az"))
                .isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void aTenantPinnedToARegionNeverLeavesIt() {
        assertThat(rule(judge(chat(TEXT), Optional.of("eastus"), DEFAULTS, "az-west"))).isEqualTo("tenant_region");
        assertThat(judge(chat(TEXT), Optional.of("eastus"), DEFAULTS, "az")).isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void aProfileMayKeepFallbacksInTheFirstChoicesRegion() {
        FallbackSettings sameRegion = new FallbackSettings(DEFAULTS.classes(), Double.POSITIVE_INFINITY, true);

        assertThat(rule(judge(chat(TEXT), Optional.empty(), sameRegion, "az-west"))).isEqualTo("same_region");
        assertThat(judge(chat(TEXT), Optional.empty(), DEFAULTS, "az-west")).isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void aDeploymentThatKeepsDataLongerIsNotAFallback() {
        assertThat(rule(judge(chat(TEXT), "cheap"))).isEqualTo("retention");
    }

    @Test
    void aDeploymentDearerThanTheProfilesCostRatioIsNotAFallback() {
        FallbackSettings twice = new FallbackSettings(DEFAULTS.classes(), 2.0, false);

        // pricey costs 7 against oa's 2: 3.5x.
        assertThat(rule(judge(chat(TEXT), Optional.empty(), twice, "pricey"))).isEqualTo("max_cost_ratio");
        assertThat(judge(chat(TEXT), "pricey")).isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void aPromptAndOutputBeyondTheTargetsContextWindowStay() {
        // 30,000 + 4,000 = 34,000 tokens; az holds 32,000.
        assertThat(rule(judge(chat(RequestNeeds.text(30_000, 4_000)), "az"))).isEqualTo("context_window");
        assertThat(judge(chat(RequestNeeds.text(28_000, 4_000)), "az")).isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void anOutputBeyondTheTargetsMaximumStays() {
        assertThat(rule(judge(chat(RequestNeeds.text(1_000, 8_000)), "az"))).isEqualTo("max_output");
    }

    @Test
    void toolsParallelToolsJsonSchemaAndImagesNeedATargetThatOffersThem() {
        // Judged from cheap to cheap, so that its features alone decide.
        DeploymentConfig cheap = CONFIG.deployments().get("cheap");
        assertThat(rule(FallbackPolicy.judge(chat(new RequestNeeds(10, 0, true, false, false, false)), Optional.empty(),
                DEFAULTS, cheap, cheap))).isEqualTo("tools");
        assertThat(rule(FallbackPolicy.judge(chat(new RequestNeeds(10, 0, false, true, false, false)), Optional.empty(),
                DEFAULTS, cheap, cheap))).isEqualTo("parallel_tools");
        assertThat(rule(FallbackPolicy.judge(chat(new RequestNeeds(10, 0, false, false, true, false)), Optional.empty(),
                DEFAULTS, cheap, cheap))).isEqualTo("json_schema");
        assertThat(rule(FallbackPolicy.judge(chat(new RequestNeeds(10, 0, false, false, false, true)), Optional.empty(),
                DEFAULTS, cheap, cheap))).isEqualTo("vision");
        assertThat(FallbackPolicy.judge(chat(TEXT), Optional.empty(), DEFAULTS, cheap, cheap))
                .isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void anotherFamilyIsAllowedWhenTheTranslationCarriesEveryFeatureUsed() {
        assertThat(judge(chat(new RequestNeeds(1_000, 500, true, false, false, true)), "claude"))
                .isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void anotherFamilyIsForbiddenForAJsonSchemaTheTranslationDoesNotCarry() {
        FallbackPolicy.Verdict v = judge(chat(new RequestNeeds(1_000, 500, false, false, true, false)), "claude");

        assertThat(rule(v)).isEqualTo("translation");
        assertThat(((FallbackPolicy.Verdict.Forbidden) v).reason()).isEqualTo(
                "the translation to anthropic does not carry a JSON schema");
    }

    @Test
    void theTranslationToGeminiCarriesAJsonSchema() {
        assertThat(judge(chat(new RequestNeeds(1_000, 500, false, false, true, false)), "gem"))
                .isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }

    @Test
    void anotherFamilyIsForbiddenForARouteSluiceDoesNotTranslate() {
        assertThat(rule(judge(plan(TrafficClass.INTERACTIVE, "openai.embeddings", TEXT), "claude"))).isEqualTo("translation");
    }

    @Test
    void azureIsTheSameFamilyAsOpenAi() {
        assertThat(judge(plan(TrafficClass.INTERACTIVE, "openai.embeddings", TEXT), "az"))
                .isInstanceOf(FallbackPolicy.Verdict.Allowed.class);
    }
}
