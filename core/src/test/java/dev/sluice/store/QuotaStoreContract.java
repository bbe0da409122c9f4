package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.limits.ShortWindow;
import dev.sluice.time.FakeClock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link QuotaStore} must do, with exact numbers. A store passes by subclassing this
 * and building a fresh, empty store on the given manual clock; the in-memory store and the Redis
 * store both run it. Time moves only through {@link #clock}.
 */
public abstract class QuotaStoreContract {

    private static final long SECOND = 1_000_000_000L;
    private static final long TTL = 60 * SECOND;

    /** Starts at 2026-01-01T00:00:00Z. */
    protected final FakeClock clock = new FakeClock();
    private final List<QuotaStore> opened = new ArrayList<>();

    /** A new store with no state, on {@code clock}, resetting daily caps at midnight in {@code zone}. */
    protected abstract QuotaStore createStore(FakeClock clock, ZoneId zone);

    private QuotaStore store(ZoneId zone) {
        QuotaStore s = createStore(clock, zone);
        opened.add(s);
        return s;
    }

    private QuotaStore store() {
        return store(ZoneOffset.UTC);
    }

    @AfterEach
    void closeStores() {
        opened.forEach(QuotaStore::close);
    }

    // ---- fixtures -------------------------------------------------------------------------

    private static BucketPlan plan(ScopeLevel level, String id, Limit... limits) {
        return BucketPlan.of(Scope.of(level, id), Limits.of(limits));
    }

    private static BucketPlan tenant(Limit... limits) {
        return plan(ScopeLevel.TENANT, "acme", limits);
    }

    private static long[] need(Object... dimensionAmountPairs) {
        long[] a = new long[Dimension.COUNT];
        for (int i = 0; i < dimensionAmountPairs.length; i += 2) {
            a[((Dimension) dimensionAmountPairs[i]).ordinal()] = ((Number) dimensionAmountPairs[i + 1]).longValue();
        }
        return a;
    }

    private static long[] tokens(long n) {
        return need(Dimension.TOTAL_TOKENS, n);
    }

    private static LeaseHandle granted(ReserveOutcome o) {
        assertThat(o).isInstanceOf(ReserveOutcome.Granted.class);
        return ((ReserveOutcome.Granted) o).lease();
    }

    private static ReserveOutcome.Short shortOf(ReserveOutcome o) {
        assertThat(o).isInstanceOf(ReserveOutcome.Short.class);
        return (ReserveOutcome.Short) o;
    }

    private static BucketState.DimensionState dim(QuotaStore s, BucketPlan p, Dimension d) {
        return s.state(p).of(d).orElseThrow();
    }

    private static ReserveOutcome reserve(QuotaStore s, BucketPlan p, long[] amounts) {
        return s.reserve(new BucketPlan[] {p}, amounts, TTL);
    }

    // ---- rates ----------------------------------------------------------------------------

    @Test
    void aNewBucketStartsFull() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(600)));
        BucketState.DimensionState d = dim(s, p, Dimension.TOTAL_TOKENS);
        assertThat(d.available()).isEqualTo(0.0);
        assertThat(d.capacity()).isEqualTo(600);
        assertThat(d.reserved()).isEqualTo(600);
        assertThat(d.open()).isEqualTo(600);
        assertThat(d.rateFactor()).isEqualTo(1.0);
    }

    @Test
    void aShortfallWaitsForTheDeficitAtTheRefillRate() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(570)));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, tokens(50)));
        // 20 tokens short at 10 tokens a second.
        assertThat(sh.waitNanos()).isEqualTo(2 * SECOND);
        assertThat(sh.available()).isEqualTo(30);
        assertThat(sh.needed()).isEqualTo(50);
        assertThat(sh.capacity()).isEqualTo(600);
        assertThat(sh.dimension()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(sh.scope()).isEqualTo(p.scope());
        assertThat(sh.pathIndex()).isZero();
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.dailyCap()).isFalse();
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).reserved()).isEqualTo(570);
    }

    @Test
    void aBucketRefillsContinuouslyUpToItsCapacity() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(600)));
        clock.advance(Duration.ofMillis(2_500));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(25.0);
        clock.advance(Duration.ofMinutes(5));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(600.0);
    }

    @Test
    void aRequestLargerThanTheCapacityNeverFits() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, tokens(601)));
        assertThat(sh.neverFits()).isTrue();
        assertThat(sh.waitKnown()).isFalse();
        assertThat(sh.available()).isEqualTo(600);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).reserved()).isZero();
    }

    @Test
    void aDeploymentLetsOneSecondOfRequestsGoAtOnce() {
        QuotaStore s = store();
        BucketPlan p = plan(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt", Limit.of(Dimension.REQUESTS, 600));
        for (int i = 0; i < 10; i++) {
            granted(reserve(s, p, need(Dimension.REQUESTS, 1)));
        }
        ReserveOutcome.Short sh = shortOf(reserve(s, p, need(Dimension.REQUESTS, 1)));
        assertThat(sh.capacity()).isEqualTo(10);
        assertThat(sh.waitNanos()).isEqualTo(100_000_000L);
    }

    // ---- short provider windows ------------------------------------------------------------

    private static BucketPlan deployment(Limit... limits) {
        return plan(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt", limits);
    }

    private static long[] input(long n) {
        return need(Dimension.INPUT_TOKENS, n);
    }

    @Test
    void aDeploymentHoldsOneSecondOfInputTokensByDefault() {
        QuotaStore s = store();
        // 60,000 a minute is 1,000 a second, and so a token a millisecond.
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(1_000)));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, input(1)));
        assertThat(sh.capacity()).isEqualTo(1_000);
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.waitNanos()).isEqualTo(1_000_000L);
    }

    @Test
    void aRequestLargerThanTheWindowWaitsForAFullBucketAndLeavesDebt() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(300)));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, input(5_000)));
        // It waits for the 300 tokens that make the window's bucket full again, not for 5,000.
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.waitNanos()).isEqualTo(300_000_000L);
        assertThat(sh.capacity()).isEqualTo(1_000);
        clock.advance(Duration.ofMillis(300));
        granted(reserve(s, p, input(5_000)));
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(-4_000.0);
        // A small request behind it waits until the debt is paid and its own 100 tokens are back.
        assertThat(shortOf(reserve(s, p, input(100))).waitNanos()).isEqualTo(4_100_000_000L);
    }

    @Test
    void aRequestLargerThanTheWholeMinuteNeverFitsADeployment() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(60_000)));
        clock.advance(Duration.ofMinutes(2));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, input(60_001)));
        assertThat(sh.neverFits()).isTrue();
        assertThat(sh.waitKnown()).isFalse();
        assertThat(sh.capacity()).isEqualTo(60_000);
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(1_000.0);
    }

    @Test
    void aConfiguredWindowAndBurstSizeTheBucket() {
        QuotaStore s = store();
        // 100 ms at 1.5 times 1,000 a second: 150 at once.
        BucketPlan p = deployment(Limit.windowed(Dimension.INPUT_TOKENS, 60_000,
                new ShortWindow(Duration.ofMillis(100), 1.5)));
        granted(reserve(s, p, need(Dimension.INPUT_TOKENS, 150)));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, need(Dimension.INPUT_TOKENS, 400)));
        assertThat(sh.capacity()).isEqualTo(150);
        assertThat(sh.waitNanos()).isEqualTo(150_000_000L);
        clock.advance(Duration.ofMillis(150));
        granted(reserve(s, p, need(Dimension.INPUT_TOKENS, 400)));
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(-250.0);
    }

    @Test
    void outputTokensHoldTheirMinuteAtADeploymentByDefault() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.OUTPUT_TOKENS, 60_000));
        granted(reserve(s, p, need(Dimension.OUTPUT_TOKENS, 60_000)));
        assertThat(dim(s, p, Dimension.OUTPUT_TOKENS).capacity()).isEqualTo(60_000);
    }

    @Test
    void totalTokensHoldOneSecondAtADeploymentByDefault() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.TOTAL_TOKENS, 60_000));
        granted(reserve(s, p, tokens(1_500)));
        // One second's 1,000, and the 1,500 that went at a full bucket left 500 of debt.
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).capacity()).isEqualTo(1_000);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(-500.0);
        assertThat(shortOf(reserve(s, p, tokens(100))).waitNanos()).isEqualTo(600_000_000L);
    }

    @Test
    void aConfiguredBurstReplacesTheDefaultWindowAndStaysTheCeiling() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000, 5_000));
        granted(reserve(s, p, input(5_000)));
        clock.advance(Duration.ofSeconds(5));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, input(5_001)));
        assertThat(sh.neverFits()).isTrue();
        assertThat(sh.capacity()).isEqualTo(5_000);
    }

    @Test
    void aTenantSpendsItsMinuteAtOnceUnlessGivenAWindow() {
        QuotaStore s = store();
        BucketPlan open = tenant(Limit.of(Dimension.TOTAL_TOKENS, 60_000));
        granted(reserve(s, open, tokens(60_000)));
        BucketPlan paced = plan(ScopeLevel.TENANT, "paced", Limit.windowed(Dimension.TOTAL_TOKENS, 60_000,
                ShortWindow.of(Duration.ofSeconds(2))));
        granted(reserve(s, paced, tokens(2_000)));
        assertThat(shortOf(reserve(s, paced, tokens(1))).capacity()).isEqualTo(2_000);
    }

    @Test
    void aReplicasShareOfAWindowedBucketKeepsItsCeiling() {
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        BucketPlan share = p.scaled(0.25).orElseThrow();
        assertThat(share.capacity(Dimension.INPUT_TOKENS)).isEqualTo(250);
        assertThat(share.ceiling(Dimension.INPUT_TOKENS)).isEqualTo(15_000);
        assertThat(share.amount(Dimension.INPUT_TOKENS)).isEqualTo(15_000);
        QuotaStore s = store();
        granted(reserve(s, share, input(250)));
        clock.advance(Duration.ofSeconds(1));
        granted(reserve(s, share, input(10_000)));
        assertThat(dim(s, share, Dimension.INPUT_TOKENS).available()).isEqualTo(-9_750.0);
    }

    // ---- paths ----------------------------------------------------------------------------

    @Test
    void aPathIsReservedAllOrNothing() {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.TOTAL_TOKENS, 1_000));
        BucketPlan dep = plan(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt", Limit.of(Dimension.TOTAL_TOKENS, 300, 300));
        BucketPlan[] path = {t, dep};
        granted(s.reserve(path, tokens(250), TTL));
        ReserveOutcome.Short sh = shortOf(s.reserve(path, tokens(100), TTL));
        assertThat(sh.pathIndex()).isEqualTo(1);
        assertThat(sh.scope()).isEqualTo(dep.scope());
        assertThat(dim(s, t, Dimension.TOTAL_TOKENS).reserved()).isEqualTo(250);
        assertThat(dim(s, t, Dimension.TOTAL_TOKENS).available()).isEqualTo(750.0);
        assertThat(s.openLeases()).isEqualTo(1);
    }

    @Test
    void theBindingShortfallIsTheOneWithTheLongestWait() {
        QuotaStore s = store();
        BucketPlan team = plan(ScopeLevel.TEAM, "ml", Limit.of(Dimension.TOTAL_TOKENS, 600));
        BucketPlan key = plan(ScopeLevel.API_KEY, "k1", Limit.of(Dimension.TOTAL_TOKENS, 60));
        BucketPlan[] path = {team, key};
        granted(s.reserve(path, tokens(60), TTL));
        // team: 540 left, fits 30; now empty it to 0 on its own.
        granted(s.reserve(new BucketPlan[] {team}, tokens(540), TTL));
        ReserveOutcome.Short sh = shortOf(s.reserve(path, tokens(30), TTL));
        // team needs 30 at 10/s (3 s), key needs 30 at 1/s (30 s): the key binds.
        assertThat(sh.pathIndex()).isEqualTo(1);
        assertThat(sh.waitNanos()).isEqualTo(30 * SECOND);
    }

    @Test
    void aRequestThatNeverFitsBindsBeforeAnyWait() {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.TOTAL_TOKENS, 6_000));
        BucketPlan key = plan(ScopeLevel.API_KEY, "k1", Limit.of(Dimension.TOTAL_TOKENS, 100));
        granted(s.reserve(new BucketPlan[] {t}, tokens(6_000), TTL));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {t, key}, tokens(200), TTL));
        assertThat(sh.pathIndex()).isEqualTo(1);
        assertThat(sh.neverFits()).isTrue();
    }

    @Test
    void aSpentDailyCapBindsBeforeARateWait() {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.REQUESTS, 60));
        BucketPlan key = plan(ScopeLevel.API_KEY, "k1", Limit.of(Dimension.DAILY_REQUESTS, 1));
        long[] one = need(Dimension.REQUESTS, 60, Dimension.DAILY_REQUESTS, 1);
        granted(s.reserve(new BucketPlan[] {t, key}, one, TTL));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {t, key}, one, TTL));
        assertThat(sh.pathIndex()).isEqualTo(1);
        assertThat(sh.dailyCap()).isTrue();
    }

    // ---- settlement -----------------------------------------------------------------------

    @Test
    void settlingRefundsWhatWasNotUsed() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        LeaseHandle l = granted(reserve(s, p, tokens(100)));
        assertThat(s.settle(l, tokens(40))).isEqualTo(SettleOutcome.SETTLED);
        BucketState.DimensionState d = dim(s, p, Dimension.TOTAL_TOKENS);
        assertThat(d.available()).isEqualTo(560.0);
        assertThat(d.settled()).isEqualTo(40);
        assertThat(d.refunded()).isEqualTo(60);
        assertThat(d.open()).isZero();
        assertThat(d.conserved()).isTrue();
    }

    @Test
    void usageAboveTheReservationBecomesDebt() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        LeaseHandle l = granted(reserve(s, p, tokens(100)));
        s.settle(l, tokens(700));
        BucketState.DimensionState d = dim(s, p, Dimension.TOTAL_TOKENS);
        assertThat(d.available()).isEqualTo(-100.0);
        assertThat(d.settled()).isEqualTo(100);
        assertThat(d.overage()).isEqualTo(600);
        assertThat(d.conserved()).isTrue();
        // Debt is paid back by refill before anything else fits: 100 of debt plus 10 wanted.
        assertThat(shortOf(reserve(s, p, tokens(10))).waitNanos()).isEqualTo(11 * SECOND);
    }

    @Test
    void aLeaseEndsOnce() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600), Limit.of(Dimension.CONCURRENT_REQUESTS, 2));
        LeaseHandle l = granted(reserve(s, p, need(Dimension.TOTAL_TOKENS, 100, Dimension.CONCURRENT_REQUESTS, 1)));
        assertThat(s.settle(l, tokens(50))).isEqualTo(SettleOutcome.SETTLED);
        assertThat(s.settle(l, tokens(500))).isEqualTo(SettleOutcome.ALREADY_CLOSED);
        assertThat(s.release(l)).isEqualTo(SettleOutcome.ALREADY_CLOSED);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(550.0);
        assertThat(dim(s, p, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(2.0);
        assertThat(s.openLeases()).isZero();
    }

    @Test
    void releasingGivesEverythingBack() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600), Limit.of(Dimension.CONCURRENT_REQUESTS, 2),
                Limit.of(Dimension.DAILY_TOKENS, 1_000));
        LeaseHandle l = granted(reserve(s, p, need(Dimension.TOTAL_TOKENS, 100, Dimension.CONCURRENT_REQUESTS, 1,
                Dimension.DAILY_TOKENS, 100)));
        assertThat(s.release(l)).isEqualTo(SettleOutcome.RELEASED);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(600.0);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).refunded()).isEqualTo(100);
        assertThat(dim(s, p, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(2.0);
        assertThat(dim(s, p, Dimension.DAILY_TOKENS).available()).isEqualTo(1_000.0);
        assertThat(s.state(p).dimensions()).allMatch(BucketState.DimensionState::conserved);
    }

    // ---- concurrency ----------------------------------------------------------------------

    @Test
    void aGaugeHoldsASlotUntilTheRequestEnds() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.CONCURRENT_REQUESTS, 2));
        long[] one = need(Dimension.CONCURRENT_REQUESTS, 1);
        LeaseHandle first = granted(reserve(s, p, one));
        granted(reserve(s, p, one));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, one));
        assertThat(sh.waitKnown()).isFalse();
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.available()).isZero();
        s.settle(first, tokens(0));
        granted(reserve(s, p, one));
        assertThat(dim(s, p, Dimension.CONCURRENT_REQUESTS).settled()).isEqualTo(1);
    }

    // ---- leases ---------------------------------------------------------------------------

    @Test
    void anExpiredLeaseFreesItsSlotButKeepsItsEstimate() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600), Limit.of(Dimension.CONCURRENT_REQUESTS, 1));
        LeaseHandle l = granted(s.reserve(new BucketPlan[] {p},
                need(Dimension.TOTAL_TOKENS, 100, Dimension.CONCURRENT_REQUESTS, 1), SECOND));
        clock.advance(Duration.ofMillis(999));
        assertThat(s.expireLeases()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(s.expireLeases()).isEqualTo(1);
        assertThat(s.openLeases()).isZero();
        BucketState.DimensionState tok = dim(s, p, Dimension.TOTAL_TOKENS);
        assertThat(tok.available()).isEqualTo(510.0);
        assertThat(tok.expired()).isEqualTo(100);
        assertThat(tok.conserved()).isTrue();
        assertThat(dim(s, p, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(1.0);
        assertThat(s.settle(l, tokens(10))).isEqualTo(SettleOutcome.ALREADY_CLOSED);
        assertThat(s.expireLeases()).isZero();
    }

    @Test
    void openLeasesCountsWhatIsNotEnded() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        LeaseHandle a = granted(reserve(s, p, tokens(1)));
        granted(reserve(s, p, tokens(1)));
        LeaseHandle c = granted(reserve(s, p, tokens(1)));
        s.settle(a, tokens(1));
        s.release(c);
        assertThat(s.openLeases()).isEqualTo(1);
    }

    // ---- shared provider scopes -----------------------------------------------------------

    private static BucketPlan subscription() {
        // 60,000 input tokens a minute: held to one second's worth, 1,000, as a deployment's are.
        return plan(ScopeLevel.PROVIDER_SCOPE, "azure:sub-1/eastus", Limit.of(Dimension.INPUT_TOKENS, 60_000));
    }

    private static BucketPlan azure(String id) {
        return plan(ScopeLevel.PROVIDER_DEPLOYMENT, id, Limit.of(Dimension.INPUT_TOKENS, 60_000));
    }

    @Test
    void twoDeploymentsOfOneProviderScopeDrawOnItsOneBucket() {
        QuotaStore s = store();
        BucketPlan scope = subscription();
        BucketPlan east1 = azure("east-1");
        BucketPlan east2 = azure("east-2");
        granted(s.reserve(new BucketPlan[] {scope, east1}, need(Dimension.INPUT_TOKENS, 600), TTL));

        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {scope, east2}, need(Dimension.INPUT_TOKENS, 600),
                TTL));
        // The other deployment's own bucket is full; the subscription has 400 of its 1,000 left,
        // and the 200 missing come back at 1,000 a second.
        assertThat(sh.scope()).isEqualTo(Scope.of(ScopeLevel.PROVIDER_SCOPE, "azure:sub-1/eastus"));
        assertThat(sh.available()).isEqualTo(400);
        assertThat(sh.waitNanos()).isEqualTo(SECOND / 5);
        assertThat(dim(s, scope, Dimension.INPUT_TOKENS).capacity()).isEqualTo(1_000);
        assertThat(dim(s, east2, Dimension.INPUT_TOKENS).available()).isEqualTo(1_000.0);
        granted(s.reserve(new BucketPlan[] {scope, east2}, need(Dimension.INPUT_TOKENS, 400), TTL));
    }

    @Test
    void aPauseOfTheSharedScopeHoldsEveryDeploymentOfItAndNoOther() {
        QuotaStore s = store();
        BucketPlan scope = subscription();
        s.control(scope, Dimension.INPUT_TOKENS, 1.0, 3 * SECOND);

        assertThat(shortOf(s.reserve(new BucketPlan[] {scope, azure("east-1")}, need(Dimension.INPUT_TOKENS, 10), TTL))
                .waitNanos()).isEqualTo(3 * SECOND);
        assertThat(shortOf(s.reserve(new BucketPlan[] {scope, azure("east-2")}, need(Dimension.INPUT_TOKENS, 10), TTL))
                .scope()).isEqualTo(scope.scope());
        granted(s.reserve(new BucketPlan[] {azure("west-1")}, need(Dimension.INPUT_TOKENS, 10), TTL));
    }

    @Test
    void settlingAnAttemptOnOneDeploymentGivesTheSharedScopeBackForAll() {
        QuotaStore s = store();
        BucketPlan scope = subscription();
        LeaseHandle l = granted(s.reserve(new BucketPlan[] {scope, azure("east-1")}, need(Dimension.INPUT_TOKENS, 900),
                TTL));
        s.settle(l, need(Dimension.INPUT_TOKENS, 300));
        assertThat(dim(s, scope, Dimension.INPUT_TOKENS).available()).isEqualTo(700.0);
        granted(s.reserve(new BucketPlan[] {scope, azure("east-2")}, need(Dimension.INPUT_TOKENS, 700), TTL));
        assertThat(dim(s, scope, Dimension.INPUT_TOKENS).conserved()).isTrue();
    }

    // ---- adaptive control -----------------------------------------------------------------

    @Test
    void aRateFactorScalesRefillAndCapacity() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(600)));
        s.control(p, Dimension.TOTAL_TOKENS, 0.5, 0);
        clock.advance(Duration.ofSeconds(10));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(50.0);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).rateFactor()).isEqualTo(0.5);
        clock.advance(Duration.ofMinutes(5));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(300.0);
    }

    @Test
    void aLowerRateFactorLowersWhatIsAvailableAtOnce() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(100)));
        s.control(p, Dimension.TOTAL_TOKENS, 0.5, 0);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(300.0);
        s.control(p, Dimension.TOTAL_TOKENS, 1.0, 0);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(300.0);
    }

    @Test
    void aRequestLargerThanTheAdaptedCapacityGoesWhenFullAndLeavesDebt() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        s.control(p, Dimension.TOTAL_TOKENS, 0.5, 0);
        clock.advanceNanos(1);
        granted(reserve(s, p, tokens(400)));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(-100.0);
    }

    @Test
    void aPauseDelaysAdmissionAndStopsRefill() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        granted(reserve(s, p, tokens(600)));
        s.control(p, Dimension.TOTAL_TOKENS, 1.0, 5 * SECOND);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).pausedForNanos()).isEqualTo(5 * SECOND);
        // Paused 5 s, then 10 tokens at 10/s.
        assertThat(shortOf(reserve(s, p, tokens(10))).waitNanos()).isEqualTo(6 * SECOND);
        clock.advance(Duration.ofSeconds(5));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(0.0);
        clock.advance(Duration.ofSeconds(1));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(10.0);
        granted(reserve(s, p, tokens(10)));
    }

    @Test
    void aZeroPauseLiftsAPause() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        s.control(p, Dimension.TOTAL_TOKENS, 1.0, 60 * SECOND);
        assertThat(shortOf(reserve(s, p, tokens(1))).waitNanos()).isEqualTo(60 * SECOND);
        s.control(p, Dimension.TOTAL_TOKENS, 1.0, 0);
        granted(reserve(s, p, tokens(1)));
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).pausedForNanos()).isZero();
    }

    @Test
    void syncDownLowersButNeverRaises() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        s.syncDown(p, Dimension.TOTAL_TOKENS, 200);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(200.0);
        s.syncDown(p, Dimension.TOTAL_TOKENS, 500);
        assertThat(dim(s, p, Dimension.TOTAL_TOKENS).available()).isEqualTo(200.0);
    }

    // ---- headroom held back for higher classes ---------------------------------------------

    /** A tenth of bucket 0 of the path held back. */
    private static final Headroom TENTH = new Headroom(0.1, 1);

    @Test
    void aReservationWithHeadroomLeavesItUntaken() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(540), TTL, TENTH));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {dep}, tokens(1), TTL, TENTH));
        // 60 left, all of it the headroom: 1 token more at 10 a second.
        assertThat(sh.waitNanos()).isEqualTo(SECOND / 10);
        assertThat(sh.available()).isEqualTo(60);
        assertThat(sh.needed()).isEqualTo(1);
        assertThat(sh.heldBack()).isEqualTo(60);
        assertThat(sh.headroomBound()).isTrue();
        assertThat(dim(s, dep, Dimension.TOTAL_TOKENS).reserved()).isEqualTo(540);
    }

    @Test
    void aReservationWithoutHeadroomTakesWhatOthersLeave() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(540), TTL, TENTH));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(60), TTL, Headroom.NONE));
        assertThat(dim(s, dep, Dimension.TOTAL_TOKENS).available()).isEqualTo(0.0);
    }

    @Test
    void headroomIsKeptOnlyOnTheBucketsItNames() {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.TOTAL_TOKENS, 600));
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 6_000, 6_000));
        BucketPlan[] path = {t, dep};
        // Bucket 1 (the deployment) keeps 600; the tenant's own bucket may be emptied.
        granted(s.reserve(path, tokens(600), TTL, new Headroom(0.1, 0b10)));
        assertThat(dim(s, t, Dimension.TOTAL_TOKENS).available()).isEqualTo(0.0);
        assertThat(dim(s, dep, Dimension.TOTAL_TOKENS).available()).isEqualTo(5_400.0);
    }

    @Test
    void aRequestLargerThanTheBucketLessItsHeadroomGoesWhenTheBucketIsFull() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(600), TTL, Headroom.NONE));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {dep}, tokens(580), TTL, TENTH));
        // Not 640 (580 and the 60 held back), which the bucket can never hold: a full bucket, 60 s away.
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.waitNanos()).isEqualTo(60 * SECOND);
        assertThat(sh.heldBack()).isEqualTo(20);
        clock.advance(Duration.ofSeconds(60));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(580), TTL, TENTH));
    }

    @Test
    void headroomIsAFractionOfTheAdaptedCapacity() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(600), TTL, Headroom.NONE));
        s.control(dep, Dimension.TOTAL_TOKENS, 0.5, 0);
        clock.advance(Duration.ofMinutes(1));
        // Adapted capacity 300, of which 30 held back.
        granted(s.reserve(new BucketPlan[] {dep}, tokens(270), TTL, TENTH));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {dep}, tokens(10), TTL, TENTH));
        assertThat(sh.heldBack()).isEqualTo(30);
        // 10 tokens at 5 a second (the halved rate).
        assertThat(sh.waitNanos()).isEqualTo(2 * SECOND);
    }

    @Test
    void aGaugeKeepsItsHeadroomButAlwaysTakesOneRequestWhenEmpty() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.CONCURRENT_REQUESTS, 10));
        for (int i = 0; i < 9; i++) {
            granted(s.reserve(new BucketPlan[] {dep}, need(Dimension.CONCURRENT_REQUESTS, 1), TTL, TENTH));
        }
        ReserveOutcome.Short sh = shortOf(
                s.reserve(new BucketPlan[] {dep}, need(Dimension.CONCURRENT_REQUESTS, 1), TTL, TENTH));
        assertThat(sh.heldBack()).isEqualTo(1);
        assertThat(sh.waitKnown()).isFalse();
        granted(s.reserve(new BucketPlan[] {dep}, need(Dimension.CONCURRENT_REQUESTS, 1), TTL, Headroom.NONE));

        BucketPlan one = plan(ScopeLevel.PROVIDER_DEPLOYMENT, "small", Limit.of(Dimension.CONCURRENT_REQUESTS, 1));
        granted(s.reserve(new BucketPlan[] {one}, need(Dimension.CONCURRENT_REQUESTS, 1), TTL, TENTH));
    }

    @Test
    void aShortfallWithoutHeadroomHoldsNothingBack() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        granted(s.reserve(new BucketPlan[] {dep}, tokens(600), TTL, Headroom.NONE));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {dep}, tokens(10), TTL, Headroom.NONE));
        assertThat(sh.heldBack()).isZero();
        assertThat(sh.headroomBound()).isFalse();
    }

    @Test
    void aBoundPathKeepsHeadroomToo() {
        QuotaStore s = store();
        BucketPlan dep = deployment(Limit.of(Dimension.TOTAL_TOKENS, 600, 600));
        BoundPath bound = s.bind(new BucketPlan[] {dep});
        granted(bound.reserve(tokens(540), TTL, TENTH));
        assertThat(shortOf(bound.reserve(tokens(1), TTL, TENTH)).heldBack()).isEqualTo(60);
        granted(bound.reserve(tokens(60), TTL));
    }

    // ---- the reserve lent on a short window's bucket ---------------------------------------

    /** A tenth of bucket 0's minute beyond its window lent. */
    private static final Headroom LENT_TENTH = Headroom.lent(0.1, 1);

    @Test
    void aLentReserveLetsARequestGoIntoTheDebtALargerOneLeft() {
        QuotaStore s = store();
        // 1,000 at once of 60,000 a minute: a tenth of the 59,000 beyond the window is 5,900.
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(5_000)));
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(-4_000.0);
        // Without the reserve a 3,000-token prompt waits for a full bucket, 5 s away ...
        assertThat(shortOf(reserve(s, p, input(3_000))).waitNanos()).isEqualTo(5 * SECOND);
        // ... with it, a level of -4,000 is within 5,900 of the full bucket it needs.
        granted(s.reserve(new BucketPlan[] {p}, input(3_000), TTL, LENT_TENTH));
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(-7_000.0);
    }

    @Test
    void aLentReserveIsBoundedAndRepaidByTheRefill() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(5_000)));
        granted(s.reserve(new BucketPlan[] {p}, input(3_000), TTL, LENT_TENTH));
        // At -7,000 a second 3,000 needs the level back to 1,000 - 5,900 = -4,900: 2,100 tokens, 2.1 s.
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {p}, input(3_000), TTL, LENT_TENTH));
        assertThat(sh.waitNanos()).isEqualTo(2_100_000_000L);
        assertThat(sh.heldBack()).isZero();
        // A small one needs its own 100 less the credit: -5,800, 1.2 s away.
        assertThat(shortOf(s.reserve(new BucketPlan[] {p}, input(100), TTL, LENT_TENTH)).waitNanos())
                .isEqualTo(1_200_000_000L);
        clock.advance(Duration.ofMillis(2_100));
        granted(s.reserve(new BucketPlan[] {p}, input(3_000), TTL, LENT_TENTH));
        // The lower classes, lent nothing, wait for the full bucket behind all of it: 8,900 tokens.
        assertThat(dim(s, p, Dimension.INPUT_TOKENS).available()).isEqualTo(-7_900.0);
        assertThat(shortOf(reserve(s, p, input(3_000))).waitNanos()).isEqualTo(8_900_000_000L);
    }

    @Test
    void aBucketOfAMinutesWorthLendsNothing() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.windowed(Dimension.INPUT_TOKENS, 60_000, ShortWindow.of(Duration.ofMinutes(1))));
        granted(reserve(s, p, input(60_000)));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {p}, input(100), TTL, LENT_TENTH));
        assertThat(sh.waitNanos()).isEqualTo(100_000_000L);
    }

    @Test
    void aLentReserveScalesWithTheRateFactorAndNeverRunsThroughAPause() {
        QuotaStore s = store();
        BucketPlan p = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        granted(reserve(s, p, input(1_000)));
        s.control(p, Dimension.INPUT_TOKENS, 0.5, 0);
        // Halved: 500 at once, 2,950 lent, 500 a second. From 0, a 3,000 request needs 500 - 2,950.
        granted(s.reserve(new BucketPlan[] {p}, input(3_000), TTL, LENT_TENTH));
        ReserveOutcome.Short sh = shortOf(s.reserve(new BucketPlan[] {p}, input(500), TTL, LENT_TENTH));
        // At -3,000, 550 short at 500 a second.
        assertThat(sh.waitNanos()).isEqualTo(1_100_000_000L);
        s.control(p, Dimension.INPUT_TOKENS, 0.5, 2 * SECOND);
        clock.advance(Duration.ofSeconds(1));
        ReserveOutcome.Short paused = shortOf(s.reserve(new BucketPlan[] {p}, input(1), TTL, LENT_TENTH));
        // The second of pause left, then 1 - 2,950 from -3,000: 51 tokens at 500 a second.
        assertThat(paused.waitNanos()).isEqualTo(SECOND + 102_000_000L);
    }

    @Test
    void aReserveIsLentOnlyOnTheBucketsItNames() {
        QuotaStore s = store();
        BucketPlan t = plan(ScopeLevel.TENANT, "acme", Limit.windowed(Dimension.INPUT_TOKENS, 60_000,
                ShortWindow.of(Duration.ofSeconds(1))));
        BucketPlan dep = deployment(Limit.of(Dimension.INPUT_TOKENS, 60_000));
        BucketPlan[] path = {t, dep};
        granted(s.reserve(path, input(5_000), TTL, Headroom.NONE));
        // Lent on the deployment (bucket 1) only: the tenant's own window still wants a full bucket.
        ReserveOutcome.Short sh = shortOf(s.reserve(path, input(3_000), TTL, Headroom.lent(0.1, 0b10)));
        assertThat(sh.pathIndex()).isZero();
        assertThat(sh.waitNanos()).isEqualTo(5 * SECOND);
        assertThat(dim(s, dep, Dimension.INPUT_TOKENS).available()).isEqualTo(-4_000.0);
    }

    // ---- daily caps -----------------------------------------------------------------------

    @Test
    void aSpentDailyCapWaitsForMidnightInTheResetZone() {
        // 2026-01-01T00:00Z is 01:00 in Berlin: the cap resets 23 hours later.
        QuotaStore s = store(ZoneId.of("Europe/Berlin"));
        BucketPlan p = tenant(Limit.of(Dimension.DAILY_REQUESTS, 2));
        long[] one = need(Dimension.DAILY_REQUESTS, 1);
        granted(reserve(s, p, one));
        granted(reserve(s, p, one));
        ReserveOutcome.Short sh = shortOf(reserve(s, p, one));
        assertThat(sh.dailyCap()).isTrue();
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.waitNanos()).isEqualTo(Duration.ofHours(23).toNanos());
        clock.advance(Duration.ofHours(23).minusMillis(1));
        assertThat(shortOf(reserve(s, p, one)).waitNanos()).isEqualTo(1_000_000L);
        clock.advance(Duration.ofMillis(1));
        granted(reserve(s, p, one));
        assertThat(dim(s, p, Dimension.DAILY_REQUESTS).available()).isEqualTo(1.0);
    }

    @Test
    void aRequestSettledAsNotCountedGivesBackItsRateAndItsDailyCount() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.REQUESTS, 60), Limit.of(Dimension.DAILY_REQUESTS, 100));
        long[] one = need(Dimension.REQUESTS, 1, Dimension.DAILY_REQUESTS, 1);
        LeaseHandle counted = granted(reserve(s, p, one));
        LeaseHandle uncounted = granted(reserve(s, p, one));
        s.settle(counted, one);
        s.settle(uncounted, need());
        assertThat(dim(s, p, Dimension.REQUESTS).available()).isEqualTo(59.0);
        assertThat(dim(s, p, Dimension.REQUESTS).refunded()).isEqualTo(1);
        assertThat(dim(s, p, Dimension.DAILY_REQUESTS).available()).isEqualTo(99.0);
    }

    @Test
    void aDailyCapSettlesToActualUsage() {
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.DAILY_TOKENS, 1_000));
        LeaseHandle l = granted(reserve(s, p, need(Dimension.DAILY_TOKENS, 300)));
        s.settle(l, need(Dimension.DAILY_TOKENS, 120));
        assertThat(dim(s, p, Dimension.DAILY_TOKENS).available()).isEqualTo(880.0);
        ReserveOutcome.Short sh = shortOf(reserve(s, p, need(Dimension.DAILY_TOKENS, 1_001)));
        assertThat(sh.neverFits()).isTrue();
        assertThat(sh.dailyCap()).isTrue();
        assertThat(sh.waitNanos()).isEqualTo(Duration.ofHours(24).toNanos());
    }

    @Test
    void concurrentCallersNeverSpendPastAMoneyCap() throws Exception {
        // $1.00 a day on the tenant, $0.50 on each of its two keys; every request is reserved at its
        // estimate (7,000 micro-dollars) and settles at most that, so no interleaving may spend past a cap.
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.DAILY_COST, 1_000_000));
        BucketPlan[] keys = {plan(ScopeLevel.API_KEY, "k0", Limit.of(Dimension.DAILY_COST, 500_000)),
            plan(ScopeLevel.API_KEY, "k1", Limit.of(Dimension.DAILY_COST, 500_000))};
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int seed = w;
                results.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    BucketPlan[] path = {t, keys[seed % 2]};
                    long granted = 0;
                    long spent = 0;
                    for (int i = 0; i < 150; i++) {
                        ReserveOutcome o = s.reserve(path, need(Dimension.DAILY_COST, 7_000), TTL);
                        if (o instanceof ReserveOutcome.Granted g) {
                            granted++;
                            long cost = 5_000 + rnd.nextInt(2_001);
                            spent += cost;
                            s.settle(g.lease(), need(Dimension.DAILY_COST, cost));
                        } else {
                            assertThat(((ReserveOutcome.Short) o).dailyCap()).isTrue();
                        }
                    }
                    return new long[] {granted, spent};
                }));
            }
            long spent = 0;
            for (Future<long[]> f : results) {
                spent += f.get()[1];
            }
            BucketState.DimensionState tenantCost = dim(s, t, Dimension.DAILY_COST);
            assertThat(spent).isLessThanOrEqualTo(1_000_000);
            assertThat(tenantCost.capacity() - tenantCost.available()).isEqualTo((double) spent);
            assertThat(tenantCost.conserved()).isTrue();
            long keysSpent = 0;
            for (BucketPlan k : keys) {
                BucketState.DimensionState keyCost = dim(s, k, Dimension.DAILY_COST);
                assertThat(keyCost.available()).isGreaterThanOrEqualTo(0.0);
                keysSpent += (long) (keyCost.capacity() - keyCost.available());
                // Spent to within one estimate: no path has room for another request.
                assertThat(shortOf(s.reserve(new BucketPlan[] {t, k}, need(Dimension.DAILY_COST, 7_000), TTL))
                        .dailyCap()).isTrue();
            }
            assertThat(keysSpent).isEqualTo(spent);
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- monthly caps ---------------------------------------------------------------------

    @Test
    void aSpentMonthlyCapWaitsForTheMonthToTurnInTheResetZone() {
        // 2026-01-01T00:00Z is 01:00 in Berlin: February starts there 31 days less an hour later.
        QuotaStore s = store(ZoneId.of("Europe/Berlin"));
        BucketPlan p = tenant(Limit.of(Dimension.MONTHLY_COST, 1_000_000));
        LeaseHandle l = granted(reserve(s, p, need(Dimension.MONTHLY_COST, 600_000)));
        s.settle(l, need(Dimension.MONTHLY_COST, 400_000));
        assertThat(dim(s, p, Dimension.MONTHLY_COST).available()).isEqualTo(600_000.0);
        ReserveOutcome.Short sh = shortOf(reserve(s, p, need(Dimension.MONTHLY_COST, 700_000)));
        assertThat(sh.dimension()).isEqualTo(Dimension.MONTHLY_COST);
        assertThat(sh.dailyCap()).isTrue();
        assertThat(sh.neverFits()).isFalse();
        assertThat(sh.available()).isEqualTo(600_000);
        assertThat(sh.waitNanos()).isEqualTo(Duration.ofHours(31 * 24 - 1).toNanos());
        // Midnight does not reset a monthly cap.
        clock.advance(Duration.ofDays(1));
        assertThat(shortOf(reserve(s, p, need(Dimension.MONTHLY_COST, 700_000))).waitNanos())
                .isEqualTo(Duration.ofHours(30 * 24 - 1).toNanos());
        clock.advance(Duration.ofHours(30 * 24 - 1).minusMillis(1));
        assertThat(shortOf(reserve(s, p, need(Dimension.MONTHLY_COST, 700_000))).waitNanos()).isEqualTo(1_000_000L);
        clock.advance(Duration.ofMillis(1));
        granted(reserve(s, p, need(Dimension.MONTHLY_COST, 700_000)));
        assertThat(dim(s, p, Dimension.MONTHLY_COST).available()).isEqualTo(300_000.0);
    }

    @Test
    void aMonthlyCapCountsEveryDayOfTheMonthBesideADailyCap() {
        // $0.10 a day and $0.25 a month: two full days, then the month has $0.05 left.
        QuotaStore s = store();
        BucketPlan p = tenant(Limit.of(Dimension.DAILY_COST, 100_000), Limit.of(Dimension.MONTHLY_COST, 250_000));
        long[] dime = need(Dimension.DAILY_COST, 100_000, Dimension.MONTHLY_COST, 100_000);
        LeaseHandle first = granted(reserve(s, p, dime));
        s.settle(first, dime);
        ReserveOutcome.Short today = shortOf(reserve(s, p, need(Dimension.DAILY_COST, 1, Dimension.MONTHLY_COST, 1)));
        assertThat(today.dimension()).isEqualTo(Dimension.DAILY_COST);
        assertThat(today.waitNanos()).isEqualTo(Duration.ofHours(24).toNanos());
        clock.advance(Duration.ofDays(1));
        LeaseHandle second = granted(reserve(s, p, dime));
        s.settle(second, dime);
        clock.advance(Duration.ofDays(1));
        assertThat(dim(s, p, Dimension.DAILY_COST).available()).isEqualTo(100_000.0);
        assertThat(dim(s, p, Dimension.MONTHLY_COST).available()).isEqualTo(50_000.0);
        ReserveOutcome.Short month = shortOf(reserve(s, p, dime));
        assertThat(month.dimension()).isEqualTo(Dimension.MONTHLY_COST);
        assertThat(month.dailyCap()).isTrue();
        assertThat(month.available()).isEqualTo(50_000);
        assertThat(month.waitNanos()).isEqualTo(Duration.ofDays(29).toNanos());
        // Nothing was held by the refusal: half a dime still fits, and the daily cap took it too.
        LeaseHandle third = granted(reserve(s, p, need(Dimension.DAILY_COST, 50_000, Dimension.MONTHLY_COST, 50_000)));
        s.settle(third, need(Dimension.DAILY_COST, 30_000, Dimension.MONTHLY_COST, 30_000));
        BucketState.DimensionState monthly = dim(s, p, Dimension.MONTHLY_COST);
        assertThat(monthly.available()).isEqualTo(20_000.0);
        assertThat(monthly.settled()).isEqualTo(230_000);
        assertThat(monthly.refunded()).isEqualTo(20_000);
        assertThat(monthly.conserved()).isTrue();
        assertThat(dim(s, p, Dimension.DAILY_COST).available()).isEqualTo(70_000.0);
    }

    // ---- invariants -----------------------------------------------------------------------

    @Test
    void countersBalanceAfterARandomRun() {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.TOTAL_TOKENS, 5_000), Limit.of(Dimension.CONCURRENT_REQUESTS, 4),
                Limit.of(Dimension.DAILY_TOKENS, 200_000));
        BucketPlan dep = plan(ScopeLevel.PROVIDER_DEPLOYMENT, "gpt", Limit.of(Dimension.REQUESTS, 600),
                Limit.of(Dimension.TOTAL_TOKENS, 3_000));
        BucketPlan[] path = {t, dep};
        SplittableRandom rnd = new SplittableRandom(42);
        List<LeaseHandle> open = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            clock.advanceNanos(rnd.nextLong(200_000_000L));
            int op = rnd.nextInt(10);
            if (op < 5 || open.isEmpty()) {
                long tok = 1 + rnd.nextInt(400);
                ReserveOutcome o = s.reserve(path, need(Dimension.REQUESTS, 1, Dimension.TOTAL_TOKENS, tok,
                        Dimension.CONCURRENT_REQUESTS, 1, Dimension.DAILY_TOKENS, tok), 3 * SECOND);
                if (o instanceof ReserveOutcome.Granted g) {
                    open.add(g.lease());
                }
            } else if (op < 8) {
                s.settle(open.remove(rnd.nextInt(open.size())), tokens(rnd.nextInt(600)));
            } else if (op < 9) {
                s.release(open.remove(rnd.nextInt(open.size())));
            } else {
                s.expireLeases();
            }
        }
        clock.advance(Duration.ofSeconds(3));
        s.expireLeases();
        assertThat(s.openLeases()).isZero();
        for (BucketPlan p : path) {
            for (BucketState.DimensionState d : s.state(p).dimensions()) {
                assertThat(d.conserved()).as(p + " " + d.dimension()).isTrue();
                assertThat(d.open()).isZero();
            }
        }
        assertThat(dim(s, t, Dimension.CONCURRENT_REQUESTS).available()).isEqualTo(4.0);
    }

    @Test
    void concurrentCallersNeverOverfillAGauge() throws Exception {
        QuotaStore s = store();
        BucketPlan t = tenant(Limit.of(Dimension.CONCURRENT_REQUESTS, 3), Limit.of(Dimension.TOTAL_TOKENS, 1_000_000));
        BucketPlan[] path = {t};
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int seed = w;
                results.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    int admitted = 0;
                    for (int i = 0; i < 250; i++) {
                        ReserveOutcome o = s.reserve(path, need(Dimension.CONCURRENT_REQUESTS, 1,
                                Dimension.TOTAL_TOKENS, 10), TTL);
                        if (o instanceof ReserveOutcome.Granted g) {
                            admitted++;
                            assertThat(dim(s, t, Dimension.CONCURRENT_REQUESTS).available()).isGreaterThanOrEqualTo(0.0);
                            s.settle(g.lease(), tokens(rnd.nextInt(20)));
                        }
                    }
                    return admitted;
                }));
            }
            int admitted = 0;
            for (Future<Integer> f : results) {
                admitted += f.get();
            }
            assertThat(admitted).isPositive();
            BucketState.DimensionState g = dim(s, t, Dimension.CONCURRENT_REQUESTS);
            assertThat(g.available()).isEqualTo(3.0);
            assertThat(g.reserved()).isEqualTo(admitted);
            assertThat(g.conserved()).isTrue();
            assertThat(dim(s, t, Dimension.TOTAL_TOKENS).conserved()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }
}
