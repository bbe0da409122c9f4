package dev.sluice.governor;

import static dev.sluice.governor.GovernorFixture.config;
import static dev.sluice.governor.GovernorFixture.deployment;
import static dev.sluice.governor.GovernorFixture.limits;
import static dev.sluice.governor.GovernorFixture.tenant;
import static dev.sluice.limits.Dimension.CONCURRENT_REQUESTS;
import static dev.sluice.limits.Dimension.INPUT_TOKENS;
import static dev.sluice.limits.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When a request waits, for how long, and in which order waiting requests are served. */
class QueueingRulesTest {

    /** 60 requests per minute at the deployment, all of them used: one more every second. */
    private static GovernorFixture saturatedDeployment() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 60, 1))).build());
        assertThat(f.admit("warmup", 0, 0)).isInstanceOf(Decision.Admitted.class);
        return f;
    }

    @Test
    void aRequestThatCanBeServedWithinItsClassBudgetWaitsAndIsAdmittedWhenCapacityReturns() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 600, 1))).build());
        f.admit("warmup", 0, 0);

        Decision d = f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE));

        Decision.Queued q = (Decision.Queued) d;
        assertThat(q.expectedWaitNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(f.governor.nextWakeupNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
        f.clock.advanceMillis(100);
        f.governor.onTimer();
        Decision.Final done = q.outcome().toCompletableFuture().join();
        assertThat(done).isInstanceOf(Decision.Admitted.class);
        assertThat(((Decision.Admitted) done).queuedNanos()).isEqualTo(Duration.ofMillis(100).toNanos());
    }

    @Test
    void anInteractiveRequestThatWouldWaitLongerThan300MsIsRejectedAtOnce() {
        GovernorFixture f = saturatedDeployment();

        Decision d = f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE));

        Rejection r = ((Decision.Rejected) d).rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.REJECTED_LOCALLY);
        assertThat(r.retryAfterMillis()).isEqualTo(1_000);
    }

    @Test
    void aBatchRequestWaitsMinutesButNotPastItsDeadline() {
        GovernorFixture f = saturatedDeployment();
        AdmissionRequest withDeadline = new AdmissionRequest("d", GovernorFixture.path("acme"),
                new Demand(0, 0, false), TrafficClass.BATCH, f.clock.nanos() + Duration.ofMillis(500).toNanos());

        assertThat(f.governor.admit(f.request("acme", 0, 0, TrafficClass.BATCH))).isInstanceOf(Decision.Queued.class);
        Decision tooSoon = f.governor.admit(withDeadline);

        assertThat(tooSoon).isInstanceOf(Decision.Rejected.class);
    }

    @Test
    void aQueuedRequestThatRunsOutOfBudgetEndsAsQueuedThenTimedOut() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(CONCURRENT_REQUESTS, 1)).build());
        f.admit("acme", 0, 0);
        Decision.Queued q = (Decision.Queued) f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE));

        f.clock.advanceMillis(300);
        f.governor.onTimer();

        Rejection r = ((Decision.Rejected) q.outcome().toCompletableFuture().join()).rejection();
        assertThat(r.decision()).isEqualTo(GatewayDecision.QUEUED_THEN_TIMED_OUT);
        assertThat(r.limiterName()).isEqualTo("concurrency");
    }

    @Test
    void freedConcurrencyAdmitsTheNextWaiterAtOnce() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("acme"), limits(CONCURRENT_REQUESTS, 1)).build());
        Reservation first = ((Decision.Admitted) f.admit("acme", 0, 0)).reservation();
        Decision.Queued q = (Decision.Queued) f.governor.admit(f.request("acme", 0, 0, TrafficClass.INTERACTIVE));

        first.settle(new Usage(0, 0));

        assertThat(q.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
    }

    @Test
    void newArrivalsDoNotBargePastWaitingRequests() {
        GovernorFixture f = saturatedDeployment();
        Decision.Queued first = (Decision.Queued) f.governor.admit(f.request("a", 0, 0, TrafficClass.BATCH));

        f.clock.advanceMillis(1_000);
        Decision second = f.governor.admit(f.request("b", 0, 0, TrafficClass.BATCH));

        assertThat(first.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(second).isInstanceOf(Decision.Queued.class);
    }

    @Test
    void waitingCriticalWorkIsServedBeforeWaitingBatchWork() {
        GovernorFixture f = saturatedDeployment();
        Decision.Queued batch = (Decision.Queued) f.governor.admit(f.request("a", 0, 0, TrafficClass.BATCH));
        Decision.Queued critical = (Decision.Queued) f.governor.admit(f.request("b", 0, 0, TrafficClass.CRITICAL));

        f.clock.advanceMillis(1_000);
        f.governor.onTimer();

        assertThat(critical.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(batch.outcome().toCompletableFuture().isDone()).isFalse();
    }

    @Test
    void aTenantShortOnItsOwnBucketDoesNotHoldUpOtherTenants() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("a"), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 1, 1)))
                .scope(deployment(), limits(REQUESTS, 6_000)).build());
        f.admit("a", 0, 0);
        Decision.Queued a = (Decision.Queued) f.governor.admit(f.request("a", 0, 0, TrafficClass.BATCH));

        Decision b = f.governor.admit(f.request("b", 0, 0, TrafficClass.BATCH));

        assertThat(b).isInstanceOf(Decision.Admitted.class);
        assertThat(a.outcome().toCompletableFuture().isDone()).isFalse();
    }

    @Test
    void aFullQueueRejectsAtOnce() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 60, 1)))
                .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofMinutes(20), 2)).build());
        f.admit("w", 0, 0);
        f.admit("a", 0, 0);
        f.admit("a", 0, 0);

        Rejection r = ((Decision.Rejected) f.admit("a", 0, 0)).rejection();

        assertThat(r.code()).isEqualTo("batch_queue_full");
    }

    @Test
    void tenantsAreServedInProportionToTheirWeightUnderContention() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("light"), ScopeSettings.weighted(dev.sluice.limits.Limits.none(), 1))
                .scope(tenant("heavy"), ScopeSettings.weighted(dev.sluice.limits.Limits.none(), 3))
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 60, 1))).build());
        f.admit("warmup", 0, 0);
        AtomicLong light = new AtomicLong();
        AtomicLong heavy = new AtomicLong();
        for (int i = 0; i < 40; i++) {
            count(f.governor.admit(f.request("light", 0, 0)), light);
            count(f.governor.admit(f.request("heavy", 0, 0)), heavy);
        }

        for (int s = 0; s < 40; s++) {
            f.clock.advanceMillis(1_000);
            f.governor.onTimer();
        }

        assertThat(heavy.get()).isEqualTo(30);
        assertThat(light.get()).isEqualTo(10);
    }

    @Test
    void aTenantBelowItsGuaranteedMinimumIsServedBeforeBorrowersAndTheRevocationIsRecorded() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("guaranteed"), new ScopeSettings(dev.sluice.limits.Limits.none(), 1,
                        limits(REQUESTS, 30)))
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 60, 1))).build());
        f.admit("borrower", 0, 0);
        for (int i = 0; i < 5; i++) {
            f.governor.admit(f.request("borrower", 0, 0));
        }
        Decision.Queued g = (Decision.Queued) f.governor.admit(f.request("guaranteed", 0, 0));

        f.clock.advanceMillis(1_000);
        f.governor.onTimer();

        assertThat(g.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        GovernorSnapshot.ShareSnapshot borrower = f.governor.snapshot().lanes().getFirst().shares().stream()
                .filter(s -> s.tenant().equals("borrower")).findFirst().orElseThrow();
        assertThat(borrower.lastRevokedAtNanos()).hasValue(f.clock.nanos());
        assertThat(borrower.revocations()).isEqualTo(1);
    }

    @Test
    void aRequestAdmittedBeyondItsTenantsMetGuaranteeIsBorrowed() {
        // Guaranteed 10 rpm; the rate is a 10-second decayed sum, so one request reads as 6 a minute, two as 12.
        GovernorFixture f = new GovernorFixture(config()
                .scope(tenant("guaranteed"), new ScopeSettings(dev.sluice.limits.Limits.none(), 1,
                        limits(REQUESTS, 10)))
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(REQUESTS, 600, 100))).build());
        assertThat(((Decision.Admitted) f.governor.admit(f.request("guaranteed", 0, 0))).borrowed()).isFalse();
        assertThat(((Decision.Admitted) f.governor.admit(f.request("guaranteed", 0, 0))).borrowed()).as("6 < 10")
                .isFalse();
        assertThat(((Decision.Admitted) f.governor.admit(f.request("guaranteed", 0, 0))).borrowed()).as("12 >= 10")
                .isTrue();
        assertThat(((Decision.Admitted) f.governor.admit(f.request("other", 0, 0))).borrowed())
                .as("a tenant with no guarantee was promised nothing, so lends and borrows nothing").isFalse();
    }

    @Test
    void theQueueWaitForeseenIncludesWorkAlreadyWaiting() {
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(INPUT_TOKENS, 6_000, 1_000)))
                .build());
        f.admit("w", 1_000, 0);
        f.governor.admit(f.request("a", 1_000, 0));

        Decision.Queued second = (Decision.Queued) f.governor.admit(f.request("b", 1_000, 0));

        // Two requests of 1,000 tokens at 100 tokens per second each.
        assertThat(second.expectedWaitNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
    }

    @Test
    void aNewcomerIsJudgedByItsPlaceInFairOrderNotByTheWholeQueue() {
        // 100 tokens a second; each request of 1,000 tokens occupies the deployment for 10 s.
        GovernorFixture f = new GovernorFixture(config()
                .scope(deployment(), dev.sluice.limits.Limits.of(dev.sluice.limits.Limit.of(INPUT_TOKENS, 6_000, 1_000)))
                .classPolicy(TrafficClass.BATCH, new ClassPolicy(Duration.ofSeconds(25), 100)).build());
        f.admit("w", 1_000, 0);
        assertThat(f.admit("heavy", 1_000, 0)).isInstanceOf(Decision.Queued.class);
        assertThat(f.admit("heavy", 1_000, 0)).isInstanceOf(Decision.Queued.class);
        assertThat(f.admit("heavy", 1_000, 0)).as("30 s behind its own backlog").isInstanceOf(Decision.Rejected.class);

        Decision light = f.admit("light", 1_000, 0);

        // Fair order puts it right after the heavy tenant's first request: 10 s ahead plus its own 10 s,
        // although the whole queue holds 20 s.
        assertThat(((Decision.Queued) light).expectedWaitNanos()).isEqualTo(Duration.ofSeconds(20).toNanos());
    }

    @Test
    void aTenantWhoseLastWaiterGaveUpKeepsItsPlaceInFairOrder() {
        // One request at a time; each served request is settled before the next is served.
        GovernorFixture f = new GovernorFixture(config().scope(deployment(), limits(CONCURRENT_REQUESTS, 1)).build());
        Reservation running = ((Decision.Admitted) f.admit("warmup", 0, 0)).reservation();
        AdmissionRequest impatient = new AdmissionRequest("a1", GovernorFixture.path("a"), new Demand(0, 0, false),
                TrafficClass.BATCH, f.clock.nanos() + Duration.ofMillis(200).toNanos());
        Decision.Queued a1 = (Decision.Queued) f.governor.admit(impatient);
        Decision.Queued b1 = (Decision.Queued) f.governor.admit(f.request("b", 0, 0));
        Decision.Queued b2 = (Decision.Queued) f.governor.admit(f.request("b", 0, 0));
        f.clock.advanceMillis(200);
        f.governor.onTimer();
        assertThat(a1.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Rejected.class);

        // a got nothing for its first request, so its next one starts where that one did: level with b1,
        // ahead of b2. Charged for the request it never got, it would come after b2.
        Decision.Queued a2 = (Decision.Queued) f.governor.admit(f.request("a", 0, 0));
        running.settle(new Usage(0, 0));
        assertThat(b1.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        ((Decision.Admitted) b1.outcome().toCompletableFuture().join()).reservation().settle(new Usage(0, 0));

        assertThat(a2.outcome().toCompletableFuture().getNow(null)).isInstanceOf(Decision.Admitted.class);
        assertThat(b2.outcome().toCompletableFuture().getNow(null)).isNull();
    }

    private static void count(Decision d, AtomicLong admitted) {
        if (d instanceof Decision.Admitted) {
            admitted.incrementAndGet();
        } else if (d instanceof Decision.Queued q) {
            CompletableFuture<Decision.Final> f = q.outcome().toCompletableFuture();
            f.thenAccept(x -> {
                if (x instanceof Decision.Admitted) {
                    admitted.incrementAndGet();
                }
            });
        }
    }
}
