package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.ProfileTarget;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A profile's routing changed while running: checked as the file's, audited, replayed at start. */
class ProfileEditsTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              a: { kind: openai, base_url: "http://127.0.0.1:1" }
              b: { kind: azure-openai, base_url: "http://127.0.0.1:2", azure_deployment: chat }
            profiles: { p: { deployment: a, model: gpt-4o-mini } }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-pe" } } } } } } }
            """, "pe.yaml", v -> null);
    static final Actor OPS = new Actor("ops", AdminScope.ADMIN);
    static final Actor VIEWER = new Actor("viewer", AdminScope.READ);

    final FakeClock clock = new FakeClock();
    final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC))
            .clock(clock).adaptive(false).build();
    final ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());

    static JsonNode json(String s) throws Exception {
        return ControlJson.JSON.readTree(s);
    }

    @Test
    void deploymentsWeightsAndFallbackPolicyAreChangedAndAudited() throws Exception {
        ProfileConfig p = control.updateProfile(OPS, "p", json("""
                {"deployments":[{"deployment":"b","model":"gpt-4o","weight":3},"a"],
                 "fallback":{"classes":["interactive"],"max_cost_ratio":1.5}}"""));

        assertThat(p.targets()).containsExactly(new ProfileTarget("b", "gpt-4o", 3), new ProfileTarget("a", "gpt-4o-mini", 1));
        assertThat(p.deployment()).isEqualTo("b");
        assertThat(p.model()).isEqualTo("gpt-4o");
        assertThat(p.routing()).as("a weight given: by weight, as in a file").isEqualTo(ProfileConfig.Routing.WEIGHT);
        assertThat(p.fallback().classes()).containsExactly(TrafficClass.INTERACTIVE);
        assertThat(p.fallback().maxCostRatio()).isEqualTo(1.5);
        assertThat(p.fallback().sameRegion()).isFalse();
        assertThat(runtime.config().profiles().get("p")).isEqualTo(p);
        AuditRecord last = control.journal().audit(1, Long.MAX_VALUE).get(0);
        assertThat(last.action()).isEqualTo("profile.update");
        assertThat(last.target()).isEqualTo("profile:p");
        assertThat(last.before()).contains("\"deployment\":\"a\"");
    }

    @Test
    void aFallbackPatchKeepsTheFieldsItDoesNotName() throws Exception {
        control.updateProfile(OPS, "p", json("{\"fallback\":{\"same_region\":true}}"));
        ProfileConfig p = control.updateProfile(OPS, "p", json("{\"fallback\":{\"max_cost_ratio\":2}}"));

        assertThat(p.fallback().sameRegion()).isTrue();
        assertThat(p.fallback().maxCostRatio()).isEqualTo(2.0);
        assertThat(p.targets()).containsExactly(new ProfileTarget("a", "gpt-4o-mini", 1));
    }

    static final SluiceConfig BOUNDED = ConfigLoader.parse("""
            deployments:
              a: { kind: openai, base_url: "http://127.0.0.1:1" }
              b: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles:
              p: { model: gpt-4o-mini, deployments: [a, b], fallback: { max_cost_ratio: 1.2, same_region: true } }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-pe3" } } } } } } }
            """, "bounded.yaml", v -> null);

    @Test
    void aNullMaxCostRatioRemovesTheBoundAndStaysRemovedOverAFileThatSetsOne() throws Exception {
        SluiceRuntime bounded = SluiceRuntime.builder(BOUNDED, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        ControlPlane c = new ControlPlane(bounded, ControlJournal.inMemory());

        ProfileConfig p = c.updateProfile(OPS, "p", json("{\"fallback\":{\"max_cost_ratio\":null}}"));

        assertThat(p.fallback().maxCostRatio()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(p.fallback().sameRegion()).as("the fields not named stay").isTrue();
        assertThat(ControlJson.profileRouting(p).path("fallback").has("max_cost_ratio")).as("shown unbounded").isFalse();
        SluiceRuntime restarted = SluiceRuntime.builder(BOUNDED, new InMemoryQuotaStore(clock, ZoneOffset.UTC))
                .clock(clock).adaptive(false).build();
        new ControlPlane(restarted, c.journal()).replay();
        assertThat(restarted.config().profiles().get("p").fallback().maxCostRatio())
                .as("replayed over the file's 1.2").isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(c.updateProfile(OPS, "p", json("{\"fallback\":{\"max_cost_ratio\":3}}")).fallback().maxCostRatio())
                .isEqualTo(3.0);
    }

    @Test
    void badDefinitionsAreRefusedWithTheFieldPathAndChangeNothing() throws Exception {
        SluiceConfig before = runtime.config();
        String[][] cases = {
            {"{\"deployments\":[\"a\",\"nope\"]}", "deployments[1]"},
            {"{\"deployments\":[\"a\",\"a\"]}", "deployments[1]"},
            {"{\"deployments\":[]}", "deployments"},
            {"{\"deployments\":[{\"deployment\":\"b\",\"weight\":0}]}", "deployments[0].weight"},
            {"{\"deployments\":[{\"deployment\":\"b\",\"weight\":\"heavy\"}]}", "deployments[0].weight"},
            {"{\"fallback\":{\"classes\":[\"urgent\"]}}", "fallback.classes[0]"},
            {"{\"fallback\":{\"max_cost_ratio\":0}}", "fallback.max_cost_ratio"},
            {"{\"fallback\":{\"same_region\":\"yes\"}}", "fallback.same_region"},
            {"{\"routing\":\"random\"}", "routing"},
            {"{\"model\":\"gpt-5\"}", "model"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> control.updateProfile(OPS, "p", json(c[0]))).as(c[0])
                    .isInstanceOfSatisfying(EditRefused.class, e -> {
                        assertThat(e.why()).isEqualTo(EditRefused.Why.INVALID);
                        assertThat(e.field()).isEqualTo(c[1]);
                    });
        }
        assertThat(runtime.config()).isSameAs(before);
        assertThat(control.journal().audit(10, Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void anUnknownProfileIs404AndOnlyAdminsChangeOne() throws Exception {
        assertThatThrownBy(() -> control.updateProfile(OPS, "q", json("{}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.NOT_FOUND));
        assertThatThrownBy(() -> control.updateProfile(VIEWER, "p", json("{\"deployments\":[\"b\"]}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.FORBIDDEN));
    }

    @Test
    void theChangeIsReplayedOverTheFileAtTheNextStart() throws Exception {
        control.updateProfile(OPS, "p", json("{\"deployments\":[\"b\",\"a\"],\"fallback\":{\"classes\":[\"batch\"]}}"));
        SluiceRuntime restarted = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();

        new ControlPlane(restarted, control.journal()).replay();

        ProfileConfig p = restarted.config().profiles().get("p");
        assertThat(p.targets()).extracting(ProfileTarget::deployment).isEqualTo(List.of("b", "a"));
        assertThat(p.routing()).isEqualTo(ProfileConfig.Routing.ORDER);
        assertThat(p.fallback().classes()).containsExactly(TrafficClass.BATCH);
    }

    static final SluiceConfig TWO = ConfigLoader.parse("""
            deployments:
              a: { kind: openai, base_url: "http://127.0.0.1:1" }
              b: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles:
              p: { model: gpt-4o-mini, deployments: [a, b], fallback: { same_region: true }, limits: { rpm: 60 } }
            rollouts:
              move: { profile: p, to: b, steps: [0.1, 1.0] }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-pe2" } } } } } } }
            """, "two.yaml", v -> null);

    @Test
    void aReloadTakesTheFilesLimitsAndKeepsEveryProfilesDeploymentsAndFallbackPolicy() {
        SluiceRuntime two = SluiceRuntime.builder(TWO, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();

        new ControlPlane(two, ControlJournal.inMemory()).reload(OPS, TWO);

        ProfileConfig p = two.config().profiles().get("p");
        assertThat(p.targets()).extracting(ProfileTarget::deployment).containsExactly("a", "b");
        assertThat(p.fallback().sameRegion()).isTrue();
        assertThat(p.limits()).isEqualTo(TWO.profiles().get("p").limits());
    }

    @Test
    void aReloadPutsTheFilesProfilesInForceWholeTheirRoutingIncluded() {
        SluiceRuntime two = SluiceRuntime.builder(TWO, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        SluiceConfig edited = ConfigLoader.parse("""
                deployments:
                  a: { kind: openai, base_url: "http://127.0.0.1:1" }
                  b: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles:
                  p: { model: gpt-4o-mini, deployments: [a, { deployment: b, weight: 3 }], fallback: { classes: [critical] } }
                  q: { deployment: b, model: gpt-4o }
                rollouts:
                  move: { profile: p, to: b, steps: [0.1, 1.0] }
                orgs:
                  o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-pe2", profiles: [p, q] } } } } } } }
                """, "two.yaml", v -> null);

        ControlPlane.Reload done = new ControlPlane(two, ControlJournal.inMemory()).reload(OPS, edited);

        ProfileConfig p = two.config().profiles().get("p");
        assertThat(p.targets()).containsExactly(new ProfileTarget("a", "gpt-4o-mini", 1), new ProfileTarget("b", "gpt-4o-mini", 3));
        assertThat(p.routing()).isEqualTo(ProfileConfig.Routing.WEIGHT);
        assertThat(p.fallback().classes()).containsExactly(TrafficClass.CRITICAL);
        assertThat(p.fallback().sameRegion()).as("the file no longer asks for it").isFalse();
        assertThat(p.limits().isEmpty()).isTrue();
        assertThat(two.config().profiles()).containsKey("q");
        assertThat(done.needsRestart()).isEmpty();
    }

    @Test
    void aReloadKeepsWhatTheApiChangedInAProfilesRouting() throws Exception {
        ControlPlane c = new ControlPlane(runtime, ControlJournal.inMemory());
        c.updateProfile(OPS, "p", json("{\"deployments\":[\"b\",\"a\"]}"));

        c.reload(OPS, CONFIG);

        assertThat(runtime.config().profiles().get("p").targets()).extracting(ProfileTarget::deployment)
                .containsExactly("b", "a");
    }

    @Test
    void aReloadThatMovesTheDeploymentARunningRolloutMovesFromNeedsARestart() {
        SluiceRuntime two = SluiceRuntime.builder(TWO, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        SluiceConfig moved = ConfigLoader.parse("""
                deployments:
                  a: { kind: openai, base_url: "http://127.0.0.1:1" }
                  b: { kind: openai, base_url: "http://127.0.0.1:2" }
                profiles:
                  p: { model: gpt-4o-mini, deployments: [b, a] }
                rollouts:
                  move: { profile: p, to: a, steps: [0.1, 1.0] }
                orgs:
                  o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-pe2" } } } } } } }
                """, "two.yaml", v -> null);

        assertThatThrownBy(() -> new ControlPlane(two, ControlJournal.inMemory()).reload(OPS, moved))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("needs_restart");
                    assertThat(e.field()).isEqualTo("profiles.p");
                    assertThat(e.getMessage()).contains("rollout move");
                });
        assertThat(two.config()).isSameAs(TWO);
    }

    @Test
    void aProfileUnderARolloutKeepsTheDeploymentTheRolloutMovesFrom() throws Exception {
        SluiceRuntime two = SluiceRuntime.builder(TWO, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        ControlPlane c = new ControlPlane(two, ControlJournal.inMemory());

        assertThatThrownBy(() -> c.updateProfile(OPS, "p", json("{\"deployments\":[\"b\",\"a\"]}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.field()).isEqualTo("deployments[0]");
                    assertThat(e.getMessage()).contains("rollout move");
                });
        assertThat(two.config()).isSameAs(TWO);
        assertThat(c.updateProfile(OPS, "p", json("{\"deployments\":[\"a\",{\"deployment\":\"b\",\"weight\":2}]}"))
                .targets()).hasSize(2);
    }

    @Test
    void aStateCarryingTheChangeRelaysOwnFieldIsReplayedAll() throws Exception {
        ControlJournal journal = ControlJournal.inMemory();
        // As RedisChangeRelay stores every change, here and on the replicas it imports it into.
        journal.append(new AuditRecord(0, java.time.Instant.EPOCH, "ops", "profile.update", "profile:p", "{}", "{}"),
                "{\"id\":\"p\",\"deployments\":[\"b\",\"a\"],\"relay_id\":\"replica-1:42\"}");

        new ControlPlane(runtime, journal).replay();

        assertThat(runtime.config().profiles().get("p").deployment()).isEqualTo("b");
    }

    @Test
    void aProfileIsCreatedAsTheFileWouldDefineItAndReplayedAtTheNextStart() throws Exception {
        ProfileConfig p = control.createProfile(OPS, "fast", json("""
                {"model":"gpt-4o-mini","deployments":["b","a"],"fallback":{"classes":["interactive"]},
                 "limits":{"rpm":30}}"""));

        assertThat(p.targets()).extracting(ProfileTarget::deployment).containsExactly("b", "a");
        assertThat(runtime.config().profiles()).containsKey("fast");
        assertThat(control.journal().audit(1, Long.MAX_VALUE).get(0).action()).isEqualTo("profile.create");
        SluiceRuntime restarted = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        new ControlPlane(restarted, control.journal()).replay();
        assertThat(restarted.config().profiles().get("fast")).isEqualTo(p);
    }

    @Test
    void aBadNewProfileIsRefusedWithTheFieldPathAndChangesNothing() throws Exception {
        SluiceConfig before = runtime.config();
        assertThatThrownBy(() -> control.createProfile(OPS, "x", json("{\"model\":\"m\",\"deployment\":\"nope\"}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.field()).isEqualTo("deployment"));
        assertThatThrownBy(() -> control.createProfile(OPS, "x", json("{\"deployment\":\"a\"}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.field()).isEqualTo("model"));
        assertThatThrownBy(() -> control.createProfile(OPS, "p", json("{\"model\":\"m\",\"deployment\":\"a\"}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.CONFLICT));
        assertThatThrownBy(() -> control.createProfile(OPS, "a/b", json("{\"model\":\"m\",\"deployment\":\"a\"}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.field()).isEqualTo("id"));
        assertThat(runtime.config()).isSameAs(before);
    }

    @Test
    void aProfileAKeyUsesIsNotDeletedAndOneNobodyUsesIs() throws Exception {
        assertThatThrownBy(() -> control.deleteProfile(OPS, "p"))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("profile_in_use");
                    assertThat(e.getMessage()).contains("key k");
                });
        control.createProfile(OPS, "spare", json("{\"model\":\"gpt-4o\",\"deployment\":\"b\"}"));

        control.deleteProfile(OPS, "spare");

        assertThat(runtime.config().profiles()).doesNotContainKey("spare");
        SluiceRuntime restarted = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        new ControlPlane(restarted, control.journal()).replay();
        assertThat(restarted.config().profiles()).containsOnlyKeys("p");
    }
}
