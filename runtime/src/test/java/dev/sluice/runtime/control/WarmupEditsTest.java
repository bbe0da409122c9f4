package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.WarmupConfig;
import dev.sluice.runtime.rollout.Warmup;
import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.runtime.rollout.Warmups;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Warm-ups created and deleted through the control plane, checked as the file's are; their
 * progress kept in the journal, so that a restart resumes at the same rate and another replica on
 * the same journal paces the tenant alike.
 */
class WarmupEditsTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o: { tenants: { jobs: { limits: { rpm: 240, tpm: 100000 } }, other: { limits: { rpm: 60 } } } }
            """, "warm.yaml", v -> null);
    static final Actor OPS = new Actor("ops", AdminScope.ADMIN);
    static final Actor VIEWER = new Actor("viewer", AdminScope.READ);
    static final String NIGHTLY = """
            {"tenant":"jobs","start":"02:00","duration":"1h","initial":{"rpm":12},
             "max_growth_per_minute":{"rpm":40},"thresholds":{"provider_429_rate":0.02},"min_requests":5}""";

    final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T01:59:00Z"));
    final ControlJournal journal = ControlJournal.inMemory();
    final SluiceRuntime runtime = runtime();
    final ControlPlane control = plane(runtime);

    SluiceRuntime runtime() {
        return SluiceRuntime.builder(CONFIG, new InMemoryQuotaStore(clock, ZoneOffset.UTC)).clock(clock).adaptive(false)
                .build();
    }

    /** A replica's (or a restarted process's) control plane over the one journal, its decisions kept there. */
    ControlPlane plane(SluiceRuntime r) {
        ControlPlane c = new ControlPlane(r, journal);
        c.replay();
        c.journalWarmupDecisions(Runnable::run);
        return c;
    }

    static JsonNode json(String s) throws Exception {
        return ControlJson.JSON.readTree(s);
    }

    static double rpmFactor(SluiceRuntime r) {
        return r.governor().bucket(Scope.of(ScopeLevel.TENANT, "jobs")).orElseThrow().of(Dimension.REQUESTS)
                .orElseThrow().rateFactor();
    }

    /** Past 02:00: the scheduled warm-up starts, then {@code minutes} clean minutes grow it. */
    void startAndGrow(SluiceRuntime r, int minutes) {
        clock.advance(Duration.ofSeconds(61));
        r.tick();
        for (int m = 0; m < minutes; m++) {
            clock.advance(Duration.ofMinutes(1));
            r.tick();
        }
    }

    @Test
    void aCreatedWarmupIsInForceWaitingAndAudited() throws Exception {
        WarmupConfig w = control.createWarmup(OPS, "nightly", json(NIGHTLY));

        assertThat(w.startAt()).contains(LocalTime.of(2, 0));
        assertThat(w.duration()).isEqualTo(Duration.ofHours(1));
        assertThat(w.initial()).containsEntry(Dimension.REQUESTS, 12L);
        assertThat(w.provider429Rate()).isEqualTo(0.02);
        assertThat(runtime.config().warmups()).containsExactly(w);
        assertThat(runtime.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.WAITING);
        AuditRecord last = journal.audit(1, Long.MAX_VALUE).get(0);
        assertThat(last.action()).isEqualTo("warmup.create");
        assertThat(last.target()).isEqualTo("warmup:nightly");
        assertThat(last.tokenId()).isEqualTo("ops");
    }

    @Test
    void aCreatedWarmupPacesItsTenantFromItsStartOnARuntimeThatHadNone() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));

        startAndGrow(runtime, 1);

        assertThat(runtime.warmups().inspect("nightly").rates()).containsEntry(Dimension.REQUESTS, 52L);
        assertThat(rpmFactor(runtime)).isEqualTo(52 / 240.0);
    }

    @Test
    void badDefinitionsAreRefusedWithTheFieldPathAndChangeNothing() throws Exception {
        String[][] cases = {
            {"{\"tenant\":\"ghost\",\"max_growth_per_minute\":{\"rpm\":10}}", "tenant"},
            {"{\"max_growth_per_minute\":{\"rpm\":10}}", "tenant"},
            {"{\"tenant\":\"jobs\"}", "max_growth_per_minute"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":0}}", "max_growth_per_minute.rpm"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpd\":10}}", "max_growth_per_minute.rpd"},
            {"{\"tenant\":\"other\",\"max_growth_per_minute\":{\"tpm\":10}}", "max_growth_per_minute.tpm"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"initial\":{\"tpm\":5}}", "initial.tpm"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"start\":\"2am\"}", "start"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"duration\":\"2d\"}", "duration"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"thresholds\":{\"provider_429_rate\":2}}",
                "thresholds.provider_429_rate"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"thresholds\":{\"error_rate\":0.1}}",
                "thresholds.error_rate"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"min_requests\":0}", "min_requests"},
            {"{\"tenant\":\"jobs\",\"max_growth_per_minute\":{\"rpm\":10},\"class\":\"batch\"}", "class"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> control.createWarmup(OPS, "nightly", json(c[0]))).as(c[0])
                    .isInstanceOfSatisfying(EditRefused.class, e -> {
                        assertThat(e.why()).isEqualTo(EditRefused.Why.INVALID);
                        assertThat(e.field()).isEqualTo(c[1]);
                    });
        }
        assertThatThrownBy(() -> control.createWarmup(OPS, "bad id", json(NIGHTLY)))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.field()).isEqualTo("id"));
        assertThat(runtime.config().warmups()).isEmpty();
        assertThat(runtime.warmups().inspect()).isEmpty();
        assertThat(journal.latestSeq()).isZero();
    }

    @Test
    void aTakenIdOrATenantAlreadyWarmedUpIsAConflict() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));

        assertThatThrownBy(() -> control.createWarmup(OPS, "nightly",
                json("{\"tenant\":\"other\",\"max_growth_per_minute\":{\"rpm\":10}}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.why()).isEqualTo(EditRefused.Why.CONFLICT);
                    assertThat(e.code()).isEqualTo("warmup_exists");
                });
        assertThatThrownBy(() -> control.createWarmup(OPS, "again", json(NIGHTLY)))
                .isInstanceOfSatisfying(EditRefused.class, e -> {
                    assertThat(e.why()).isEqualTo(EditRefused.Why.CONFLICT);
                    assertThat(e.code()).isEqualTo("tenant_warmed_up");
                });
    }

    @Test
    void deletingATenantOrItsOrgThatAWarmupPacesIsAConflictNamingTheWarmup() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        long audited = journal.latestSeq();

        for (Runnable delete : java.util.List.<Runnable>of(() -> control.deleteTenant(OPS, "jobs", true),
                () -> control.deleteOrg(OPS, "o", true))) {
            assertThatThrownBy(delete::run).isInstanceOfSatisfying(EditRefused.class, e -> {
                assertThat(e.why()).isEqualTo(EditRefused.Why.CONFLICT);
                assertThat(e.code()).isEqualTo("tenant_warmed_up");
                assertThat(e.getMessage()).isEqualTo(
                        "Warm-up nightly paces tenant jobs; delete the warm-up first; nothing was changed.");
            });
        }
        assertThat(runtime.config().warmups()).hasSize(1);
        assertThat(journal.latestSeq()).isEqualTo(audited);

        control.deleteTenant(OPS, "other", true);
        control.deleteWarmup(OPS, "nightly");
        control.deleteTenant(OPS, "jobs", true);
        assertThat(runtime.config().orgs().get("o").tenants()).isEmpty();
    }

    @Test
    void onlyAnAdminCreatesOrDeletesAWarmup() throws Exception {
        assertThatThrownBy(() -> control.createWarmup(VIEWER, "nightly", json(NIGHTLY)))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.FORBIDDEN));
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        assertThatThrownBy(() -> control.deleteWarmup(VIEWER, "nightly"))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.FORBIDDEN));
    }

    @Test
    void aDeletedWarmupLetsItsTenantRunAtItsLimitsAndFreesTheTenant() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 1);
        assertThat(rpmFactor(runtime)).isLessThan(1.0);

        control.deleteWarmup(OPS, "nightly");

        assertThat(runtime.config().warmups()).isEmpty();
        assertThat(runtime.warmups().inspect()).isEmpty();
        assertThat(rpmFactor(runtime)).isEqualTo(1.0);
        assertThat(journal.audit(1, Long.MAX_VALUE).get(0).action()).isEqualTo("warmup.delete");
        assertThatThrownBy(() -> control.deleteWarmup(OPS, "nightly"))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.code()).isEqualTo("unknown_warmup"));
        control.createWarmup(OPS, "again", json(NIGHTLY));
    }

    @Test
    void aRestartResumesAWarmupAtTheSameRateWithItsHistory() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 2);
        Warmups.View before = runtime.warmups().inspect("nightly");
        assertThat(before.rates()).containsEntry(Dimension.REQUESTS, 92L);

        clock.advance(Duration.ofSeconds(20));
        SluiceRuntime restarted = runtime();
        plane(restarted);

        Warmups.View after = restarted.warmups().inspect("nightly");
        assertThat(after.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(after.grown()).isEqualTo(2);
        assertThat(after.rates()).containsEntry(Dimension.REQUESTS, 92L);
        assertThat(after.history()).isEqualTo(before.history());
        assertThat(rpmFactor(restarted)).as("the restarted runtime paces the tenant at once").isEqualTo(92 / 240.0);

        restarted.tick();
        assertThat(restarted.warmups().inspect("nightly").status()).as("not started again the same day")
                .isEqualTo(Warmup.Status.WARMING);
        assertThat(restarted.warmups().inspect("nightly").grown()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(40));
        restarted.tick();
        assertThat(restarted.warmups().inspect("nightly").grown()).as("its minute runs on from the last decision")
                .isEqualTo(3);
    }

    @Test
    void aDoneWarmupDoesNotStartAgainTheSameDayAfterARestart() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 7);
        assertThat(runtime.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.DONE);

        SluiceRuntime restarted = runtime();
        plane(restarted);
        restarted.tick();

        assertThat(restarted.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.DONE);
        assertThat(rpmFactor(restarted)).isEqualTo(1.0);
    }

    @Test
    void anOperatorsPauseStillHoldsAfterARestart() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 1);
        runtime.warmups().pause("nightly", "ops");

        SluiceRuntime restarted = runtime();
        plane(restarted);
        clock.advance(Duration.ofMinutes(2));
        restarted.tick();
        assertThat(restarted.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.PAUSED);
        assertThat(restarted.warmups().inspect("nightly").grown()).isEqualTo(1);

        restarted.warmups().resume("nightly", "ops");
        assertThat(restarted.warmups().inspect("nightly").history()).extracting(WarmupDecision::action)
                .containsExactly("started", "grown", "paused", "held", "resumed");
    }

    @Test
    void aDeletedWarmupStaysDeletedAfterARestart() throws Exception {
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 1);
        control.deleteWarmup(OPS, "nightly");

        SluiceRuntime restarted = runtime();
        plane(restarted);

        assertThat(restarted.config().warmups()).isEmpty();
        assertThat(restarted.warmups().inspect()).isEmpty();
        assertThat(rpmFactor(restarted)).isEqualTo(1.0);
    }

    @Test
    void anotherReplicaOnTheJournalPacesTheTenantAtTheSameRateAfterItsSync() throws Exception {
        SluiceRuntime other = runtime();
        ControlPlane otherPlane = plane(other);
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 1);

        assertThat(otherPlane.sync()).isTrue();

        Warmups.View there = other.warmups().inspect("nightly");
        assertThat(there.status()).isEqualTo(Warmup.Status.WARMING);
        assertThat(there.rates()).containsEntry(Dimension.REQUESTS, 52L);
        assertThat(there.history()).isEqualTo(runtime.warmups().inspect("nightly").history());
        assertThat(rpmFactor(other)).isEqualTo(52 / 240.0);

        other.warmups().pause("nightly", "oncall");
        assertThat(control.sync()).isTrue();
        assertThat(runtime.warmups().inspect("nightly").status()).isEqualTo(Warmup.Status.PAUSED);
    }

    @Test
    void twoReplicasJudgingOneMinuteDifferentlyBothEndOnTheCautiousDecision() throws Exception {
        SluiceRuntime other = runtime();
        ControlPlane otherPlane = plane(other);
        control.createWarmup(OPS, "nightly", json(NIGHTLY));
        startAndGrow(runtime, 0);
        otherPlane.sync();

        // One replica's minute is clean and grows; the other's operator holds it at the same version.
        clock.advance(Duration.ofMinutes(1));
        runtime.tick();
        other.warmups().pause("nightly", "oncall");
        control.sync();
        otherPlane.sync();

        for (SluiceRuntime r : new SluiceRuntime[] {runtime, other}) {
            Warmups.View v = r.warmups().inspect("nightly");
            assertThat(v.status()).isEqualTo(Warmup.Status.PAUSED);
            assertThat(v.grown()).isZero();
        }
    }

    @Test
    void aWarmupDoneOnFirstTrafficIsNotStartedAgainByTheFirstRequestAfterARestart() throws Exception {
        control.createWarmup(OPS, "backfill", json("{\"tenant\":\"jobs\",\"initial\":{\"rpm\":12},"
                + "\"max_growth_per_minute\":{\"rpm\":40}}"));
        runtime.warmups().onArrival("jobs");
        for (int m = 0; m < 7; m++) {
            clock.advance(Duration.ofMinutes(1));
            runtime.tick();
        }
        assertThat(runtime.warmups().inspect("backfill").status()).isEqualTo(Warmup.Status.DONE);

        SluiceRuntime restarted = runtime();
        plane(restarted);
        restarted.warmups().onArrival("jobs");
        assertThat(restarted.warmups().inspect("backfill").status()).as("busy until the restart")
                .isEqualTo(Warmup.Status.DONE);

        clock.advance(Duration.ofMinutes(16));
        restarted.warmups().onArrival("jobs");
        assertThat(restarted.warmups().inspect("backfill").status()).as("after a quiet spell")
                .isEqualTo(Warmup.Status.WARMING);
    }
}
