package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.limits;
import static dev.sluice.governor.GovernorFixture.minute;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.CONCURRENT_REQUESTS;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The class reserve: the part of every shared bucket that classes served later may not take, so
 * that short-budget work finds capacity at once when long-budget work has drained the bucket, and
 * that costs long-budget work burst, never rate.
 */
class ClassReserveTest {

    /** 6,000 input tokens a minute at the deployment (100 a second), default class policies. */
    private static GovernorFixture deploymentOf6000() {
        return new GovernorFixture(config().scope(deployment(), minute(INPUT_TOKENS, 6_000)).build());
    }

    private static Decision admit(GovernorFixture f, long in, TrafficClass c) {
        return f.governor.admit(f.request("acme", in, 0, c));
    }

    /** A request of class {@code c} that takes no tokens: the class has asked lately, so its reserve is held. */
    private static void seen(GovernorFixture f, TrafficClass c) {
        assertThat(admit(f, 0, c)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void byDefaultATenthOfSharedCapacityIsHeldBackForInteractiveAndCriticalWork() {
        GovernorConfig c = config().build();
        assertThat(c.headroomFor(TrafficClass.CRITICAL)).isZero();
        assertThat(c.headroomFor(TrafficClass.INTERACTIVE)).isZero();
        assertThat(c.headroomFor(TrafficClass.BATCH)).isEqualTo(0.1);
        assertThat(c.headroomFor(TrafficClass.EVAL)).isEqualTo(0.1);
        assertThat(c.headroomFor(TrafficClass.BACKGROUND)).isEqualTo(0.1);
        assertThat(c.reserveHolders(TrafficClass.BATCH)).isEqualTo("interactive");
    }

    @Test
    void batchWorkLeavesTheReserveAndInteractiveWorkTakesIt() {
        GovernorFixture f = deploymentOf6000();
        seen(f, TrafficClass.INTERACTIVE);
        assertThat(admit(f, 5_400, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);

        // 600 left: all of it the interactive reserve.
        Decision batch = admit(f, 100, TrafficClass.BATCH);
        assertThat(batch).isInstanceOf(Decision.Queued.class);
        Decision.Queued q = (Decision.Queued) batch;
        assertThat(q.expectedWaitNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
        assertThat(q.explanation().reserve()).as("the reserve was part of the wait").isTrue();
        assertThat(q.explanation().headerValue()).contains("scope=deployment:dep dimension=input_tpm").contains("reserve=true");

        assertThat(admit(f, 600, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(0.0);
    }

    @Test
    void unusedReserveCostsBatchWorkNoRate() {
        GovernorFixture f = deploymentOf6000();
        seen(f, TrafficClass.INTERACTIVE);
        admit(f, 5_400, TrafficClass.BATCH);
        Decision.Queued first = (Decision.Queued) admit(f, 100, TrafficClass.BATCH);
        Decision.Queued second = (Decision.Queued) admit(f, 100, TrafficClass.BATCH);

        // Every refill above the reserve goes to batch: 100 a second, the deployment's whole rate.
        f.clock.advanceMillis(1_000);
        f.governor.onTimer();
        assertThat(first.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(second.outcome().toCompletableFuture().getNow(null)).isNull();
        f.clock.advanceMillis(1_000);
        f.governor.onTimer();
        assertThat(second.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(600.0);
    }

    @Test
    void atARefillAWaitingInteractiveRequestIsServedBeforeABatchRequestThatCameFirst() {
        GovernorFixture f = deploymentOf6000();
        admit(f, 6_000, TrafficClass.CRITICAL);
        Decision.Queued batch = (Decision.Queued) admit(f, 10, TrafficClass.BATCH);
        Decision.Queued interactive = (Decision.Queued) admit(f, 20, TrafficClass.INTERACTIVE);

        f.clock.advanceMillis(200);
        f.governor.onTimer();

        assertThat(interactive.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(batch.outcome().toCompletableFuture().getNow(null)).isNull();
    }

    @Test
    void aReserveIsReclaimedWhenItsClassHasNotAskedForAMinuteAndHeldAgainWhenItDoes() {
        GovernorFixture f = deploymentOf6000();
        seen(f, TrafficClass.INTERACTIVE);
        f.clock.advanceMillis(60_000);

        // No chat for a minute: batch may take the whole bucket.
        assertThat(admit(f, 6_000, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        // A chat asks again (it waits for its 100 tokens, 1 s away, longer than it may: refused) ...
        assertThat(admit(f, 100, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Rejected.class);
        // ... and from then on batch leaves the reserve again: 100 tokens wait for 700 in the bucket.
        Decision.Queued q = (Decision.Queued) admit(f, 100, TrafficClass.BATCH);
        assertThat(q.expectedWaitNanos()).isEqualTo(Duration.ofSeconds(7).toNanos());
    }

    /** 120,000 input tokens a minute over the default one-second window: 2,000 at once, 118,000 beyond. */
    private static GovernorFixture shortWindowOf120000() {
        return new GovernorFixture(config().scope(deployment(), limits(INPUT_TOKENS, 120_000)).build());
    }

    @Test
    void onAShortWindowInteractiveWorkIsLentTheReserveOfTheMinuteAndBatchWorkRepaysIt() {
        GovernorFixture f = shortWindowOf120000();
        // A batch prompt larger than the window goes at a full bucket and leaves it at -1,500.
        assertThat(admit(f, 3_500, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        // A chat larger than the window would wait 1.75 s for a full bucket; a tenth of the 118,000
        // beyond the window (11,800) is lent to it while batch work shares the deployment.
        assertThat(admit(f, 3_000, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(-4_500.0);
        // Batch work waits for the full bucket, and the interactive reserve above it: 300 of 2,000,
        // 4,800 tokens at 2,000 a second.
        Decision.Queued q = (Decision.Queued) admit(f, 100, TrafficClass.BATCH);
        assertThat(q.expectedWaitNanos()).isEqualTo(Duration.ofMillis(2_400).toNanos());
    }

    @Test
    void withoutLowerClassWorkNothingIsLent() {
        GovernorFixture f = shortWindowOf120000();
        assertThat(admit(f, 3_000, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
        // The bucket is at -1,000: the next chat needs a full bucket, 1.5 s away, longer than it may wait.
        assertThat(admit(f, 3_000, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Rejected.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(-1_000.0);
    }

    @Test
    void criticalWorkIsLentTheInteractiveReserveToo() {
        GovernorFixture f = shortWindowOf120000();
        assertThat(admit(f, 3_500, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        assertThat(admit(f, 3_000, TrafficClass.CRITICAL)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(deployment(), INPUT_TOKENS).available()).isEqualTo(-4_500.0);
    }

    @Test
    void aTenantsOwnBucketKeepsNoReserve() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(INPUT_TOKENS, 1_000))
                .scope(deployment(), minute(INPUT_TOKENS, 100_000)).build());

        assertThat(admit(f, 1_000, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        assertThat(f.state(tenant("acme"), INPUT_TOKENS).available()).isEqualTo(0.0);
    }

    @Test
    void criticalWorkMayUseTheInteractiveReserveAndInteractiveLeavesCriticalsOwn() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), minute(INPUT_TOKENS, 6_000))
                .classPolicy(TrafficClass.CRITICAL, ClassPolicy.defaults().get(TrafficClass.CRITICAL).withReserve(0.05))
                .build());
        assertThat(f.governor.config().reserveHolders(TrafficClass.BATCH)).isEqualTo("critical and interactive");
        seen(f, TrafficClass.CRITICAL);
        seen(f, TrafficClass.INTERACTIVE);
        // Batch leaves 900 (15%), interactive 300 (critical's 5%), critical nothing.
        assertThat(admit(f, 5_100, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        assertThat(admit(f, 600, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
        assertThat(admit(f, 1, TrafficClass.INTERACTIVE)).isNotInstanceOf(Decision.Admitted.class);
        assertThat(admit(f, 300, TrafficClass.CRITICAL)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void concurrencyKeepsAReserveToo() {
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(CONCURRENT_REQUESTS, 10)).build());
        seen(f, TrafficClass.INTERACTIVE);
        // With the interactive request in flight, batch may fill the deployment up to 9 of 10.
        for (int i = 0; i < 8; i++) {
            assertThat(admit(f, 0, TrafficClass.BATCH)).isInstanceOf(Decision.Admitted.class);
        }
        assertThat(admit(f, 0, TrafficClass.BATCH)).isInstanceOf(Decision.Queued.class);
        assertThat(admit(f, 0, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void aRejectionByTheReserveSaysSoAndForWhom() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), minute(INPUT_TOKENS, 6_000))
                .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofMillis(500), 100)).build());
        seen(f, TrafficClass.INTERACTIVE);
        admit(f, 5_400, TrafficClass.BATCH);

        Rejection r = ((Decision.Rejected) admit(f, 100, TrafficClass.BATCH)).rejection();

        assertThat(r.code()).isEqualTo("deployment_input_tpm_reserved");
        assertThat(r.retryAfterMillis()).isEqualTo(1_000);
        assertThat(r.scopeName()).isEqualTo("deployment:dep");
        assertThat(r.explanation().reserve()).isTrue();
        assertThat(r.message()).isEqualTo("deployment:dep has 600 input tokens per minute but 600 of them are held back "
                + "for interactive requests (class reserve) and 100 are needed; capacity returns in 1.0 s, longer than "
                + "the batch request may wait (500 ms).");
    }

    @Test
    void aQueuedRequestThatTimesOutOnTheReserveSaysSo() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), minute(INPUT_TOKENS, 6_000))
                .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofSeconds(2), 100)).build());
        seen(f, TrafficClass.INTERACTIVE);
        admit(f, 5_400, TrafficClass.BATCH);
        Decision.Queued q = (Decision.Queued) admit(f, 100, TrafficClass.BATCH);
        // Interactive work keeps draining what refills, so the batch request never fits.
        f.clock.advanceMillis(1_000);
        assertThat(admit(f, 700, TrafficClass.INTERACTIVE)).isInstanceOf(Decision.Admitted.class);
        f.governor.onTimer();
        f.clock.advanceMillis(1_000);
        f.governor.onTimer();

        Rejection r = ((Decision.Rejected) q.outcome().toCompletableFuture().join()).rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.QUEUED_THEN_TIMED_OUT);
        assertThat(r.message()).contains("held back for interactive requests, class reserve");
    }

    @Test
    void reservesMustLeaveSomethingForTheLowestClass() {
        ClassPolicy half = ClassPolicy.defaults().get(TrafficClass.CRITICAL).withReserve(0.9);
        assertThatThrownBy(() -> config().classPolicy(TrafficClass.CRITICAL, half).build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("reserve");
        assertThatThrownBy(() -> new ClassPolicy(Duration.ZERO, 1, 1.0))
                .isInstanceOf(ConfigException.class).hasMessageContaining("reserve");
        assertThatThrownBy(() -> new ClassPolicy(Duration.ZERO, 1, -0.1))
                .isInstanceOf(ConfigException.class).hasMessageContaining("reserve");
    }
}
