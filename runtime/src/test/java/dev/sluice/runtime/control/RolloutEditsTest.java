package dev.sluice.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.rollout.Rollout;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Rollouts created and deleted through the control plane, checked as the file's are; their stage,
 * history and decisions kept in the journal, so that a restart and another replica on the same
 * journal take them back.
 */
class RolloutEditsTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            deployments:
              old: { kind: openai, base_url: "http://127.0.0.1:1", capabilities: { region: us, retention: limited } }
              new: { kind: openai, base_url: "http://127.0.0.1:2", capabilities: { region: us, retention: limited } }
              eu: { kind: openai, base_url: "http://127.0.0.1:3", capabilities: { region: eu, retention: limited } }
              loose: { kind: openai, base_url: "http://127.0.0.1:4", capabilities: { region: us, retention: standard } }
            profiles:
              chat: { deployment: old, model: gpt-4o, fallback: { same_region: true } }
              other: { deployment: old, model: gpt-4o }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-re", profiles: [other] } } } } } } }
            """, "re.yaml", v -> null);
    static final Actor OPS = new Actor("ops", AdminScope.ADMIN);
    static final Actor VIEWER = new Actor("viewer", AdminScope.READ);
    static final String MOVE = """
            {"profile":"chat","to":"new","steps":[10,50,100],"interval":"5m",
             "thresholds":{"provider_429_rate":0.005,"p95_latency":"3s"},"rollback_after":2}""";

    final FakeClock clock = new FakeClock();
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
        c.journalRolloutDecisions(Runnable::run);
        return c;
    }

    static JsonNode json(String s) throws Exception {
        return ControlJson.JSON.readTree(s);
    }

    @Test
    void aCreatedRolloutIsInForcePendingAndAudited() throws Exception {
        RolloutConfig r = control.createRollout(OPS, "move", json(MOVE));

        assertThat(r.from()).as("the profile's first deployment by default").isEqualTo("old");
        assertThat(r.steps()).containsExactly(10.0, 50.0, 100.0);
        assertThat(r.interval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(r.thresholds().p95Latency()).contains(Duration.ofSeconds(3));
        assertThat(runtime.config().rollouts()).containsExactly(r);
        RolloutView v = runtime.rollouts().inspect("move");
        assertThat(v.status()).isEqualTo(Rollout.Status.PENDING);
        assertThat(v.percent()).isZero();
        AuditRecord last = journal.audit(1, Long.MAX_VALUE).get(0);
        assertThat(last.action()).isEqualTo("rollout.create");
        assertThat(last.target()).isEqualTo("rollout:move");
        assertThat(last.tokenId()).isEqualTo("ops");
    }

    @Test
    void startImmediatelyStartsItAsTheCreatingTokensDecision() throws Exception {
        control.createRollout(OPS, "move", json("{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[10,100],"
                + "\"start\":\"immediately\"}"));

        RolloutView v = runtime.rollouts().inspect("move");
        assertThat(v.status()).isEqualTo(Rollout.Status.RUNNING);
        assertThat(v.percent()).isEqualTo(10);
        assertThat(v.history()).extracting(RolloutDecision::by).containsExactly("ops");
    }

    @Test
    void badDefinitionsAreRefusedWithTheFieldPathAndChangeNothing() throws Exception {
        String[][] cases = {
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[10,5,100]}", "steps[1]"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[10,100,100]}", "steps[2]"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[]}", "steps"},
            {"{\"profile\":\"chat\",\"to\":\"nope\",\"steps\":[100]}", "to"},
            {"{\"profile\":\"chat\",\"to\":\"old\",\"steps\":[100]}", "to"},
            {"{\"profile\":\"nope\",\"to\":\"new\",\"steps\":[100]}", "profile"},
            {"{\"profile\":\"chat\",\"to\":\"eu\",\"steps\":[100]}", "to"},
            {"{\"profile\":\"other\",\"to\":\"loose\",\"steps\":[100]}", "to"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"thresholds\":{\"error_rate\":\"high\"}}",
                "thresholds.error_rate"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"thresholds\":{\"p95_latency\":12}}",
                "thresholds.p95_latency"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"thresholds\":{\"provider_429_rate\":2}}",
                "thresholds.provider_429_rate"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"max_growth_per_minute\":{\"rpm\":0}}",
                "max_growth_per_minute.rpm"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"tenants_first\":[\"ghost\"]}", "tenants_first[0]"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"colour\":\"red\"}", "colour"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"shadow\":{\"sample\":2}}", "shadow.sample"},
            {"{\"profile\":\"chat\",\"to\":\"new\",\"steps\":[100],\"shadow\":{\"share\":0.1}}", "shadow.share"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> control.createRollout(OPS, "move", json(c[0]))).as(c[0])
                    .isInstanceOfSatisfying(EditRefused.class, e -> {
                        assertThat(e.why()).isEqualTo(EditRefused.Why.INVALID);
                        assertThat(e.field()).isEqualTo(c[1]);
                    });
        }
        assertThat(runtime.config().rollouts()).isEmpty();
        assertThat(runtime.rollouts().inspect()).isEmpty();
        assertThat(journal.latestSeq()).isZero();
    }

    @Test
    void aTargetTheProfilesPolicyForbidsNamesTheRule() throws Exception {
        assertThatThrownBy(() -> control.createRollout(OPS, "move", json("{\"profile\":\"chat\",\"to\":\"eu\",\"steps\":[100]}")))
                .hasMessageContaining("same_region");
    }

    @Test
    void aTakenIdOrAProfileAlreadyInRolloutIsAConflict() throws Exception {
        control.createRollout(OPS, "move", json(MOVE));

        assertThatThrownBy(() -> control.createRollout(OPS, "move", json("{\"profile\":\"other\",\"to\":\"new\",\"steps\":[100]}")))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.code()).isEqualTo("rollout_exists"));
        assertThatThrownBy(() -> control.createRollout(OPS, "again", json(MOVE)))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.code()).isEqualTo("profile_in_rollout"));
    }

    @Test
    void onlyAnAdminCreatesOrDeletesARollout() throws Exception {
        assertThatThrownBy(() -> control.createRollout(VIEWER, "move", json(MOVE)))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.FORBIDDEN));
        control.createRollout(OPS, "move", json(MOVE));
        assertThatThrownBy(() -> control.deleteRollout(VIEWER, "move"))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.why()).isEqualTo(EditRefused.Why.FORBIDDEN));
    }

    @Test
    void aDeletedRolloutStopsMovingTrafficAndFreesItsProfile() throws Exception {
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");

        control.deleteRollout(OPS, "move");

        assertThat(runtime.config().rollouts()).isEmpty();
        assertThat(runtime.rollouts().inspect()).isEmpty();
        assertThat(runtime.rollouts().percent("move")).isEmpty();
        assertThat(journal.audit(1, Long.MAX_VALUE).get(0).action()).isEqualTo("rollout.delete");
        assertThatThrownBy(() -> control.deleteRollout(OPS, "move"))
                .isInstanceOfSatisfying(EditRefused.class, e -> assertThat(e.code()).isEqualTo("unknown_rollout"));
        control.deleteProfile(OPS, "chat");
        assertThat(runtime.config().profiles()).doesNotContainKey("chat");
    }

    @Test
    void aRolloutsStageHistoryAndDecisionsSurviveARestart() throws Exception {
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");
        clock.advance(Duration.ofMinutes(1));
        runtime.rollouts().advance("move", "ops");
        runtime.rollouts().pause("move", "ops");
        RolloutView before = runtime.rollouts().inspect("move");

        clock.advance(Duration.ofMinutes(1));
        SluiceRuntime restarted = runtime();
        plane(restarted);

        RolloutView after = restarted.rollouts().inspect("move");
        assertThat(after.status()).isEqualTo(Rollout.Status.PAUSED);
        assertThat(after.stage()).isEqualTo(1);
        assertThat(after.percent()).isEqualTo(50);
        assertThat(after.history()).isEqualTo(before.history());
    }

    @Test
    void anOperatorsPauseStillHoldsAfterARestart() throws Exception {
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");
        runtime.rollouts().pause("move", "ops");

        SluiceRuntime restarted = runtime();
        plane(restarted);
        restarted.rollouts().resume("move", "ops");

        assertThat(restarted.rollouts().inspect("move").status()).isEqualTo(Rollout.Status.RUNNING);
        assertThat(restarted.rollouts().inspect("move").history()).extracting(RolloutDecision::action)
                .containsExactly(RolloutDecision.Action.STARTED, RolloutDecision.Action.PAUSED,
                        RolloutDecision.Action.RESUMED);
    }

    @Test
    void aDeletedRolloutStaysDeletedAfterARestart() throws Exception {
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");
        control.deleteRollout(OPS, "move");

        SluiceRuntime restarted = runtime();
        plane(restarted);

        assertThat(restarted.config().rollouts()).isEmpty();
        assertThat(restarted.rollouts().inspect()).isEmpty();
    }

    @Test
    void anotherReplicaOnTheJournalTakesEachDecisionAtItsSync() throws Exception {
        SluiceRuntime other = runtime();
        ControlPlane otherPlane = plane(other);
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");
        runtime.rollouts().advance("move", "ops");

        assertThat(otherPlane.sync()).isTrue();

        RolloutView there = other.rollouts().inspect("move");
        assertThat(there.status()).isEqualTo(Rollout.Status.RUNNING);
        assertThat(there.stage()).isEqualTo(1);
        assertThat(there.history()).isEqualTo(runtime.rollouts().inspect("move").history());

        other.rollouts().rollback("move", "oncall", "answers look wrong");
        assertThat(control.sync()).isTrue();
        assertThat(runtime.rollouts().inspect("move").status()).isEqualTo(Rollout.Status.ROLLED_BACK);
        assertThat(runtime.rollouts().percent("move")).hasValue(0);
    }

    @Test
    void twoReplicasDecidingOneIntervalDifferentlyBothEndOnTheSaferDecision() throws Exception {
        SluiceRuntime other = runtime();
        ControlPlane otherPlane = plane(other);
        control.createRollout(OPS, "move", json(MOVE));
        runtime.rollouts().start("move", "ops");
        otherPlane.sync();

        runtime.rollouts().advance("move", "ops");
        other.rollouts().pause("move", "oncall");
        control.sync();
        otherPlane.sync();

        for (SluiceRuntime r : new SluiceRuntime[] {runtime, other}) {
            RolloutView v = r.rollouts().inspect("move");
            assertThat(v.status()).isEqualTo(Rollout.Status.PAUSED);
            assertThat(v.stage()).isZero();
        }
    }
}
