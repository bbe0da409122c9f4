package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rules of changes that need the governor's state or the journal, without a listener. */
class ControlPlaneTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-cp", limits: { daily_tokens: 10000 } } } } } } } }
              resale: { limits: { rpm: 1000 } }
            """, "cp.yaml", v -> null);
    static final Actor OPS = new Actor("ops", AdminScope.ADMIN);

    final FakeClock clock = new FakeClock();
    final InMemoryQuotaStore store = new InMemoryQuotaStore(clock, ZoneOffset.UTC);
    final SluiceRuntime runtime = SluiceRuntime.builder(CONFIG, store).clock(clock).adaptive(false).build();
    final ControlPlane control = new ControlPlane(runtime, ControlJournal.inMemory());

    @Test
    void aDailyCapCannotBeSetBelowWhatWasSpentToday() {
        Decision d = runtime.governor().admit(new AdmissionRequest("t1", new RequestPath("o", "acme", "acme/x", "k", "p", "d"),
                new Demand(3_000, 1_000, false), TrafficClass.INTERACTIVE, clock.nanos() + Duration.ofSeconds(10).toNanos()));
        assertThat(d).isInstanceOf(Decision.Admitted.class);
        assertThatThrownBy(() -> control.updateKey(OPS, "k", Optional.of(Limits.of(Limit.of(Dimension.DAILY_TOKENS, 3_999))),
                Optional.empty())).isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("daily_cap_below_spent");
                    assertThat(e.field()).isEqualTo("limits.daily_tokens");
                    assertThat(e.getMessage()).contains("at least 4000");
                });
        control.updateKey(OPS, "k", Optional.of(Limits.of(Limit.of(Dimension.DAILY_TOKENS, 4_000))), Optional.empty());
        assertThat(runtime.governor().config().settings(Scope.of(ScopeLevel.API_KEY, "k")).limits()
                .get(Dimension.DAILY_TOKENS).orElseThrow().amount()).isEqualTo(4_000);
        ((Decision.Admitted) d).reservation().release();
    }

    @Test
    void aMonthlyBudgetCannotBeSetBelowWhatWasSpentThisMonth() {
        Decision d = runtime.governor().admit(new AdmissionRequest("t1", new RequestPath("o", "acme", "acme/x", "k", "p", "d"),
                new Demand(3_000, 1_000, false, 0, 250_000), TrafficClass.INTERACTIVE,
                clock.nanos() + Duration.ofSeconds(10).toNanos()));
        assertThat(d).isInstanceOf(Decision.Admitted.class);
        // No cap yet, so nothing counted: a first monthly_cost is accepted at any amount.
        control.updateKey(OPS, "k", Optional.of(Limits.of(Limit.of(Dimension.MONTHLY_COST, 1_000_000))), Optional.empty());
        ((Decision.Admitted) d).reservation().release();
        Decision spend = runtime.governor().admit(new AdmissionRequest("t2", new RequestPath("o", "acme", "acme/x", "k", "p",
                "d"), new Demand(3_000, 1_000, false, 0, 250_000), TrafficClass.INTERACTIVE,
                clock.nanos() + Duration.ofSeconds(10).toNanos()));
        assertThat(spend).isInstanceOf(Decision.Admitted.class);
        clock.advance(Duration.ofDays(1));
        assertThatThrownBy(() -> control.updateKey(OPS, "k", Optional.of(Limits.of(Limit.of(Dimension.MONTHLY_COST,
                249_999))), Optional.empty())).isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("monthly_cap_below_spent");
                    assertThat(e.field()).isEqualTo("limits.monthly_cost");
                    assertThat(e.getMessage()).as("dollars, as the API takes them")
                            .startsWith("limits.monthly_cost: 0.249999 dollars (expected: at least 0.25 dollars, ")
                            .contains("has spent this month");
                });
        ((Decision.Admitted) spend).reservation().release();
    }

    @Test
    void aPartnerHandsOutItsAllocationTimesItsOversubscription() {
        Actor reseller = new Actor("reseller", AdminScope.partner("resale"), 1.5);
        Limits rpm600 = Limits.of(Limit.of(Dimension.REQUESTS, 600));
        control.createTenant(reseller, "resale", "r1", 1, Limits.none(), rpm600);
        control.createTenant(reseller, "resale", "r2", 1, Limits.none(), rpm600);
        assertThatThrownBy(() -> control.createTenant(reseller, "resale", "r3", 1, Limits.none(),
                Limits.of(Limit.of(Dimension.REQUESTS, 301)))).isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.code()).isEqualTo("exceeds_partner_allocation");
                    assertThat(e.getMessage()).contains("would hand out 1501").contains("at most the allocation 1500");
                });
        control.createTenant(reseller, "resale", "r3", 1, Limits.none(), Limits.of(Limit.of(Dimension.REQUESTS, 300)));
        assertThatThrownBy(() -> control.createTenant(reseller, "resale", "r4", 1, Limits.none(),
                Limits.of(Limit.of(Dimension.REQUESTS, 1001)))).isInstanceOf(EditRefused.class);
    }

    @Test
    void aRefusedChangeChangesNothingAndWritesNoRecord() {
        SluiceConfig before = runtime.config();
        assertThatThrownBy(() -> control.createTenant(OPS, "o", "acme", 1, Limits.none(), Limits.none()))
                .isInstanceOf(EditRefused.class);
        assertThat(runtime.config()).isSameAs(before);
        assertThat(control.journal().audit(10, Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void aChangeThatCannotBeRecordedIsNotMade() {
        ControlJournal broken = new ControlJournal() {
            @Override
            public AuditRecord append(AuditRecord record, String state) {
                throw new IllegalStateException("database away");
            }

            @Override
            public java.util.List<AuditRecord> audit(int limit, long beforeSeq) {
                return java.util.List.of();
            }

            @Override
            public java.util.List<Replayed> replay() {
                return java.util.List.of();
            }
        };
        ControlPlane c = new ControlPlane(runtime, broken);
        SluiceConfig before = runtime.config();
        assertThatThrownBy(() -> c.createTenant(OPS, "o", "gamma", 1, Limits.none(), Limits.none()))
                .hasMessage("database away");
        assertThatThrownBy(() -> c.pause(OPS, Scope.of(ScopeLevel.TENANT, "acme"), "x", Optional.empty()))
                .hasMessage("database away");
        assertThat(runtime.config()).isSameAs(before);
        assertThat(runtime.pauses().list(clock.epochMillis())).isEmpty();
    }

    @Test
    void theJournalReplayedOverTheFileGivesWhatTheApiMade() {
        control.createTenant(OPS, "o", "beta", 2, Limits.none(), Limits.none());
        control.pause(OPS, Scope.of(ScopeLevel.TENANT, "beta"), "replayed", Optional.empty());
        SluiceRuntime restarted = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        new ControlPlane(restarted, control.journal()).replay();
        assertThat(TreeEdits.tenant(restarted.config(), "beta").orElseThrow().tenant().weight()).isEqualTo(2.0);
        assertThat(restarted.pauses().of(Scope.of(ScopeLevel.TENANT, "beta"), clock.epochMillis())).isPresent();
    }

    @Test
    void aScopeWithChildrenIsDeletedOnlyWhenAskedToCascade() {
        control.pause(OPS, Scope.of(ScopeLevel.API_KEY, "k"), "incident", Optional.empty());
        assertThatThrownBy(() -> control.deleteTenant(OPS, "acme", false)).isInstanceOfSatisfying(EditRefused.class, e -> {
            assertThat(e.why()).isEqualTo(EditRefused.Why.CONFLICT);
            assertThat(e.code()).isEqualTo("tenant_has_teams");
            assertThat(e.getMessage()).isEqualTo("tenant:acme still has 1 team(s) [x]; delete them first, or ask for "
                    + "?cascade=true to delete them with it.");
        });
        assertThatThrownBy(() -> control.deleteTeam(OPS, "acme", "x", false)).isInstanceOfSatisfying(EditRefused.class,
                e -> assertThat(e.code()).isEqualTo("team_has_keys"));
        assertThatThrownBy(() -> control.deleteOrg(OPS, "o", false)).isInstanceOfSatisfying(EditRefused.class,
                e -> assertThat(e.code()).isEqualTo("org_has_tenants"));
        assertThat(TreeEdits.key(runtime.config(), "k")).isPresent();

        control.deleteTenant(OPS, "acme", true);

        assertThat(TreeEdits.tenant(runtime.config(), "acme")).isEmpty();
        assertThat(TreeEdits.key(runtime.config(), "k")).isEmpty();
        assertThat(runtime.pauses().list(clock.epochMillis())).isEmpty();
        AuditRecord last = control.journal().audit(1, Long.MAX_VALUE).get(0);
        assertThat(last.action()).isEqualTo("tenant.delete");
        assertThat(last.target()).isEqualTo("tenant:acme");
        control.deleteOrg(OPS, "o", false);
        assertThat(runtime.config().orgs()).containsOnlyKeys("resale");
    }

    @Test
    void aPartnerDeletesWhatIsBelowItsSubjectAndNothingElse() {
        Actor reseller = new Actor("reseller", AdminScope.partner("resale"), 1.0);
        control.createTenant(reseller, "resale", "r1", 1, Limits.none(), Limits.none());
        assertThatThrownBy(() -> control.deleteTenant(reseller, "acme", true)).isInstanceOfSatisfying(EditRefused.class,
                e -> assertThat(e.code()).isEqualTo("outside_partner_subtree"));
        assertThatThrownBy(() -> control.deleteOrg(reseller, "resale", true)).isInstanceOfSatisfying(EditRefused.class,
                e -> assertThat(e.code()).isEqualTo("admin_only"));
        control.deleteTenant(reseller, "r1", false);
        assertThat(TreeEdits.tenant(runtime.config(), "r1")).isEmpty();
    }

    @Test
    void aDeletionIsReplayedOverTheFileAtTheNextStart() {
        control.deleteTeam(OPS, "acme", "x", true);
        SluiceRuntime restarted = SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock)
                .adaptive(false).build();
        new ControlPlane(restarted, control.journal()).replay();
        assertThat(TreeEdits.tenant(restarted.config(), "acme").orElseThrow().tenant().teams()).isEmpty();
        assertThat(TreeEdits.key(restarted.config(), "k")).isEmpty();
    }
}
