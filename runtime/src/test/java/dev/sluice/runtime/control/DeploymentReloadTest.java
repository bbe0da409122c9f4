package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** A reload that adds, removes or replaces deployments: put in force whole, or refused with the field that stops it. */
class DeploymentReloadTest {

    static final String ORGS = """
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-dr" } } } } } } }
            """;
    static final SluiceConfig AB = ConfigLoader.parse("""
            deployments:
              a: { kind: openai, base_url: "http://127.0.0.1:1" }
              b: { kind: openai, base_url: "http://127.0.0.1:2" }
            profiles: { p: { deployment: a, model: gpt-4o-mini } }
            """ + ORGS, "dr.yaml", v -> null);
    /** {@link #AB} with b removed and c added. */
    static final SluiceConfig AC = ConfigLoader.parse("""
            deployments:
              a: { kind: openai, base_url: "http://127.0.0.1:9" }
              c: { kind: anthropic, base_url: "http://127.0.0.1:3" }
            profiles: { p: { deployments: [c, a], model: gpt-4o-mini } }
            """ + ORGS, "dr.yaml", v -> null);

    final FakeClock clock = new FakeClock();

    SluiceRuntime runtime(SluiceConfig c) {
        return SluiceRuntime.builder(c, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock).adaptive(false).build();
    }

    @Test
    void aReloadAddsRemovesAndReplacesDeploymentsAndNamesNoneAsNeedingARestart() {
        SluiceRuntime runtime = runtime(AB);
        ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());

        ControlPlane.Reload done = control.reload(ProfileEditsTest.OPS, AC);

        assertThat(done.needsRestart()).isEmpty();
        assertThat(runtime.config().deployments()).containsOnlyKeys("a", "c");
        assertThat(runtime.config().deployments().get("a").baseUrl().getPort()).isEqualTo(9);
        assertThat(runtime.deployments().version("b")).isEmpty();
        assertThat(runtime.deployments().version("c")).isPresent();
        assertThat(runtime.config().profiles().get("p").deployment()).isEqualTo("c");
    }

    @Test
    void aProfileTheApiRoutedOntoADeploymentTheReloadRemovesRefusesItAndChangesNothing() throws Exception {
        SluiceRuntime runtime = runtime(AB);
        ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());
        control.updateProfile(ProfileEditsTest.OPS, "p", ProfileEditsTest.json("{\"deployments\":[\"b\",\"a\"]}"));
        SluiceConfig before = runtime.config();

        assertThatThrownBy(() -> control.reload(ProfileEditsTest.OPS, AC))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("deployment_in_use");
                    assertThat(e.field()).isEqualTo("profiles.p.deployments");
                    assertThat(e.getMessage()).contains("\"b\"").contains("PATCH /admin/profiles/p")
                            .contains("nothing was changed");
                });
        assertThat(runtime.config()).isSameAs(before);
        assertThat(runtime.deployments().version("b")).isPresent();
    }

    @Test
    void aRolloutOntoADeploymentTheReloadRemovesRefusesIt() {
        SluiceRuntime runtime = runtime(ProfileEditsTest.TWO);
        ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());
        SluiceConfig withoutB = ConfigLoader.parse("""
                deployments:
                  a: { kind: openai, base_url: "http://127.0.0.1:1" }
                profiles: { p: { deployment: a, model: gpt-4o-mini } }
                """ + ORGS, "two.yaml", v -> null);

        assertThatThrownBy(() -> control.reload(ProfileEditsTest.OPS, withoutB))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("deployment_in_use");
                    assertThat(e.field()).isEqualTo("rollouts.move.to");
                });
        assertThat(runtime.config()).isSameAs(ProfileEditsTest.TWO);
    }

    @Test
    void aProviderScopeMovedUnderADeploymentKeptStillNeedsARestart() {
        String scoped = """
                provider_scopes:
                  "openai:org-x": { limits: { rpm: 100 } }
                deployments:
                  a: { kind: openai, base_url: "http://127.0.0.1:1"%s }
                  n: { kind: openai, base_url: "http://127.0.0.1:4", provider_scopes: [\"openai:org-x\"] }
                profiles: { p: { deployment: a, model: gpt-4o-mini } }
                """ + ORGS;
        SluiceConfig start = ConfigLoader.parse(scoped.formatted(""), "ps.yaml", v -> null);
        SluiceRuntime runtime = runtime(start);
        ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());

        assertThatThrownBy(() -> control.reload(ProfileEditsTest.OPS,
                ConfigLoader.parse(scoped.formatted(", provider_scopes: [\"openai:org-x\"]"), "ps.yaml", v -> null)))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.field()).isEqualTo("provider_scopes"));
        assertThat(runtime.config()).isSameAs(start);
    }
}
