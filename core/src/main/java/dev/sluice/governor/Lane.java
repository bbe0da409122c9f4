package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.store.BucketPlan;
import dev.sluice.store.Headroom;
import dev.sluice.store.ReserveOutcome;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Everything queued for one provider deployment: a queue per traffic class, each served in
 * weighted-fair order across tenants (start-time fair queueing on the deployment's dominant
 * resource), tenants below a guaranteed minimum first. The queues are guarded by this object's
 * monitor; the per-class counts can be read without it, which is what lets the admission fast
 * path stay lock-free when nothing waits.
 */
final class Lane {

    private static final TrafficClass[] CLASSES = TrafficClass.values();
    private static final Dimension[] DIMS = Dimension.values();

    final String deployment;
    volatile DeploymentGuard guard = DeploymentGuard.open();
    private volatile BucketPlan deploymentPlan;
    private final AtomicIntegerArray queued = new AtomicIntegerArray(CLASSES.length);
    private final ConcurrentHashMap<String, TenantShare> shares = new ConcurrentHashMap<>();

    /** Per class: tenant -> its waiters in arrival order. */
    private final List<Map<String, Flow>> flows = new java.util.ArrayList<>(CLASSES.length);
    private final double[] virtualTime = new double[CLASSES.length];
    private final long[] queuedCostNanos = new long[CLASSES.length];
    private long seq;
    private long wakeAt = Long.MAX_VALUE;
    private long earliestGiveUp = Long.MAX_VALUE;
    private volatile double holdNanosAverage = 1e9;
    /**
     * Per dimension, the deployment's refill factor in force (adaptive multiplier, cut, ramp stage,
     * as last given to {@link QuotaGovernor#control}) and the end of its pause: waits are predicted
     * at the rate actually in force, not the configured one.
     */
    private final double[] factor = new double[Dimension.COUNT];
    private final long[] pausedUntil = new long[Dimension.COUNT];
    /** The shared bucket the queue's head was last short of: what a newcomer queued behind it waits for. */
    private ReserveOutcome.Short heldBy;
    /**
     * Per class, what the fleet's other replicas have queued for this deployment, in the same
     * configured-rate cost as {@link #queuedCostNanos}, as they last published it (zero on one
     * replica). Replaced whole, so a reader sees one publication.
     */
    private volatile long[] othersQueued = new long[CLASSES.length];
    /**
     * While others queue too: this replica's unspent part of the refill, in configured-rate
     * nanoseconds, and when it was last accrued (see {@link FleetShare}).
     */
    private double fleetCredit;
    private long creditAt = Long.MIN_VALUE;

    /**
     * A class's reserve is held back while the class has asked for this deployment within this
     * long: a minute spans the pauses between one person's chats, and a deployment that only
     * batch work uses gets its whole bucket back within a minute of the last chat.
     */
    static final long RESERVE_IDLE_NANOS = 60_000_000_000L;
    /** Last-asked times are written at most this often, so admissions rarely write a shared line. */
    private static final long ASKED_RESOLUTION_NANOS = 1_000_000_000L;
    private static final long NEVER = Long.MIN_VALUE / 2;
    /** Per class, when it last asked for this deployment (to within {@link #ASKED_RESOLUTION_NANOS}). */
    private final AtomicLongArray lastAsked = new AtomicLongArray(CLASSES.length);
    /** Bit per class: a request of it has come here with the call's expected duration known ({@link #learnService}). */
    private volatile int knownMask;
    /** Per class, whether its waiters without a duration took another class's first one ({@link #learnService}). */
    private final boolean[] borrowed = new boolean[CLASSES.length];

    Lane(String deployment, BucketPlan deploymentPlan) {
        this.deployment = deployment;
        this.deploymentPlan = deploymentPlan;
        for (int i = 0; i < CLASSES.length; i++) {
            flows.add(new LinkedHashMap<>());
            lastAsked.set(i, NEVER);
        }
        java.util.Arrays.fill(factor, 1.0);
    }

    /** The deployment's refill on {@code d} now runs at {@code rateFactor} and is paused until {@code pausedUntilNanos} (0: not). */
    synchronized void control(Dimension d, double rateFactor, long pausedUntilNanos) {
        factor[d.ordinal()] = rateFactor;
        pausedUntil[d.ordinal()] = pausedUntilNanos;
    }

    /** How much longer refill on {@code d} stays paused; 0 if it is not. */
    synchronized long pauseLeft(Dimension d, long now) {
        return Math.max(0, pausedUntil[d.ordinal()] - now);
    }

    /**
     * Time the deployment's configured-rate {@code costNanos} takes at the rate in force, plus any
     * pause still to run. Work ahead is summed per request at the configured rate (the fair-queue
     * tags are kept in those units), so it is stretched by the slowest factor among the rates the
     * deployment limits: an over-estimate only when dimensions are cut unevenly, and then the
     * request is refused a little early rather than left to time out.
     */
    synchronized long inForceNanos(long costNanos, long now) {
        BucketPlan p = deploymentPlan;
        double slowest = 1.0;
        long pause = 0;
        if (p != null) {
            for (int d = 0; d < Dimension.COUNT; d++) {
                if (DIMS[d].kind() == Dimension.Kind.RATE && p.limits(DIMS[d])) {
                    slowest = Math.min(slowest, factor[d]);
                    pause = Math.max(pause, pausedUntil[d] - now);
                }
            }
        }
        double stretched = slowest > 0 ? costNanos / slowest : Double.MAX_VALUE;
        return (long) Math.min(Long.MAX_VALUE / 2.0, stretched) + Math.max(0, pause);
    }

    /** The slowest refill factor in force among the rates the deployment limits (1 when none is cut). */
    private synchronized double slowestFactor() {
        BucketPlan p = deploymentPlan;
        double slowest = 1.0;
        if (p != null) {
            for (int d = 0; d < Dimension.COUNT; d++) {
                if (DIMS[d].kind() == Dimension.Kind.RATE && p.limits(DIMS[d])) {
                    slowest = Math.min(slowest, factor[d]);
                }
            }
        }
        return slowest;
    }

    /** The pause left on the dimension a waiter was last short of, when that was this deployment's bucket. */
    private long pauseLeftOf(Optional<ReserveOutcome.Short> last, long now) {
        BucketPlan p = deploymentPlan;
        if (last.isEmpty() || p == null || !last.get().scope().equals(p.scope())) {
            return 0;
        }
        return Math.max(0, pausedUntil[last.get().dimension().ordinal()] - now);
    }

    /** The shared bucket and dimension the queue is waiting for, if the last look at it found one short. */
    synchronized Optional<ReserveOutcome.Short> heldBy() {
        return Optional.ofNullable(heldBy);
    }

    /** Whether any rate of the deployment is paused now. */
    synchronized boolean anyPaused(long now) {
        for (long until : pausedUntil) {
            if (until > now) {
                return true;
            }
        }
        return false;
    }

    void replan(BucketPlan plan) {
        this.deploymentPlan = plan;
    }

    BucketPlan deploymentPlan() {
        return deploymentPlan;
    }

    TenantShare share(String tenant, QuotaGovernor governor) {
        TenantShare s = shares.get(tenant);
        if (s == null) {
            ScopeSettings settings = governor.tenantSettings(tenant);
            s = shares.computeIfAbsent(tenant, t -> new TenantShare(t, settings.weight(), settings.guaranteed()));
        }
        return s;
    }

    void reweigh(String tenant, ScopeSettings settings) {
        TenantShare s = shares.get(tenant);
        if (s != null) {
            s.weight = settings.weight();
            s.guaranteed = settings.guaranteed();
        }
    }

    Iterable<TenantShare> shares() {
        return shares.values();
    }

    /** Notes that {@code c} asked for this deployment at {@code now}. */
    void asked(TrafficClass c, long now) {
        int k = c.ordinal();
        if (now - lastAsked.get(k) >= ASKED_RESOLUTION_NANOS) {
            lastAsked.set(k, now);
        }
    }

    /**
     * A {@code c} request came with the call's expected duration {@code serviceNanos}. A cold start
     * queues work before any call has been answered, so before any duration could be learned, and
     * such a waiter's give-up time is its deadline itself. The first duration known for the class
     * here moves the give-up time of the class's waiters queued without one to their deadline less
     * twice it ({@link QuotaGovernor#callRoom}); until then the first known for any class here stands in for it (a burst queued at the
     * start may see no later request of its class before its deadline). They then leave with
     * {@code deadline_cannot_be_met} instead of staying queued until their clients give up. Give-up
     * times only ever move earlier.
     *
     * @return whether a give-up time may have moved (the caller announces the new wake-up)
     */
    boolean learnService(TrafficClass c, long serviceNanos, long now) {
        int k = c.ordinal();
        // Read without the lock: once every class knows its duration, admissions never take it here.
        if (serviceNanos <= 0 || (knownMask & (1 << k)) != 0) {
            return false;
        }
        return learnServiceLocked(k, serviceNanos, now);
    }

    private synchronized boolean learnServiceLocked(int k, long serviceNanos, long now) {
        if ((knownMask & (1 << k)) != 0) {
            return false;
        }
        knownMask |= 1 << k;
        long next = Long.MAX_VALUE;
        for (int h = 0; h < CLASSES.length; h++) {
            // The class's own duration, or the first one of another class for a class with none yet.
            boolean own = h == k;
            if (queued.get(h) == 0 || (!own && (knownMask & (1 << h)) != 0) || (!own && borrowed[h])) {
                continue;
            }
            if (!own) {
                borrowed[h] = true;
            }
            for (Flow flow : flows.get(h).values()) {
                next = Math.min(next, flow.moveGiveUps(w -> {
                    long deadline = w.request.deadlineNanos();
                    long leaveBy = deadline - QuotaGovernor.callRoom(serviceNanos);
                    if (w.request.demand().serviceNanos() > 0 || deadline == AdmissionRequest.NO_DEADLINE
                            || leaveBy >= w.giveUpAt) {
                        return w.giveUpAt;
                    }
                    Explanation e = w.explanation;
                    w.explanation = new Explanation(e.scope(), e.dimension(), e.window(), e.paused(), e.reserve(),
                            e.predictedWaitNanos(), serviceNanos, e.budgetNanos(), true);
                    w.deadlineBound = true;
                    return Math.max(now, leaveBy);
                }));
            }
        }
        earliestGiveUp = Math.min(earliestGiveUp, next);
        wakeAt = Math.min(wakeAt, next);
        return next != Long.MAX_VALUE;
    }

    /**
     * What the class reserves mean for a {@code c} request on the path's shared buckets
     * ({@code shared}, by path index) now. It leaves the reserves of the classes before it that
     * asked for this deployment lately; a reserve no one has asked for in
     * {@link #RESERVE_IDLE_NANOS} is reclaimed by the classes below it. A request that leaves
     * nothing is lent the reserves held for it (its own and those of the classes after it that
     * are held for it too) while a class below them asked lately: on a short window's bucket a
     * lower class's large request leaves debt that no held-back capacity can cover, and the
     * request goes ahead of its refill instead ({@link Headroom}).
     */
    Headroom headroom(TrafficClass c, int shared, long now, GovernorConfig config) {
        if (shared == 0) {
            return Headroom.NONE;
        }
        double fraction = 0;
        for (int h = 0; h < c.ordinal(); h++) {
            double r = config.classes().get(CLASSES[h]).reserve();
            if (r > 0 && askedLately(h, now)) {
                fraction += r;
            }
        }
        if (fraction > 0) {
            return new Headroom(fraction, shared);
        }
        double credit = 0;
        boolean belowAsked = false;
        for (int h = CLASSES.length - 1; h >= c.ordinal(); h--) {
            double r = config.classes().get(CLASSES[h]).reserve();
            if (r > 0 && belowAsked) {
                credit += r;
            }
            belowAsked |= askedLately(h, now);
        }
        return credit == 0 ? Headroom.NONE : Headroom.lent(credit, shared);
    }

    private boolean askedLately(int c, long now) {
        return now - lastAsked.get(c) < RESERVE_IDLE_NANOS;
    }

    /** Whether anything of {@code c} or a class served before it waits: then {@code c} may not barge in. */
    boolean queuedAtOrAbove(TrafficClass c) {
        for (int i = 0; i <= c.ordinal(); i++) {
            if (queued.get(i) > 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether another replica of the fleet has work of {@code c} or a class served before it queued here. */
    boolean othersQueuedAtOrAbove(TrafficClass c) {
        long[] o = othersQueued;
        for (int i = 0; i <= c.ordinal(); i++) {
            if (o[i] > 0) {
                return true;
            }
        }
        return false;
    }

    /** What the other replicas have queued in {@code c} and the classes before it, at the configured rate. */
    long othersAheadNanos(TrafficClass c) {
        return FleetShare.sumTo(othersQueued, c.ordinal());
    }

    /** Takes the other replicas' queued demand, per class ordinal (a copy is kept). */
    void othersQueued(long[] costNanosByClass) {
        othersQueued = costNanosByClass.clone();
    }

    /** The other replicas' queued demand as last given, per class ordinal. */
    long[] othersQueued() {
        return othersQueued.clone();
    }

    /** What this replica has queued per class ordinal, at the configured rate: what it publishes to the fleet. */
    synchronized long[] queuedCostNanos() {
        return queuedCostNanos.clone();
    }

    boolean anyQueued() {
        return queuedAtOrAbove(CLASSES[CLASSES.length - 1]);
    }

    int queuedIn(TrafficClass c) {
        return queued.get(c.ordinal());
    }

    /** Time everything queued in {@code c} and the classes before it needs at the deployment's configured rate. */
    synchronized long aheadNanos(TrafficClass c) {
        long sum = 0;
        for (int i = 0; i <= c.ordinal(); i++) {
            sum += queuedCostNanos[i];
        }
        return sum;
    }

    /**
     * Time the requests that fair order would serve before a new {@code c} request of this tenant
     * need at the deployment's configured rate: everything in the classes before {@code c}, and in
     * {@code c} the waiters whose start tag is below the one the newcomer would get. A light tenant's
     * newcomer goes ahead of a heavy tenant's backlog, so judging it by the whole queue would refuse
     * it as "queue busy" although it would be served at once.
     */
    synchronized long fairAheadNanos(TrafficClass c, TenantShare share) {
        int k = c.ordinal();
        long sum = 0;
        for (int i = 0; i < k; i++) {
            sum += queuedCostNanos[i];
        }
        double start = Math.max(virtualTime[k], share.lastFinishTag[k]);
        long fair = 0;
        long own = 0;
        double weights = share.weight;
        for (Flow flow : flows.get(k).values()) {
            fair += flow.costUpTo(start);
            TenantShare other = flow.peekFirst().share;
            if (other == share) {
                own = flow.cost();
            } else {
                weights += other.weight;
            }
        }
        // Tenants waiting now keep arriving, and their new requests take tags below a light
        // tenant's far-ahead start: counting only what waits would promise that tenant a wait it
        // then overruns. While everyone waiting stays backlogged, the tenant is served its weight's
        // part of the deployment, so its own backlog takes at most that long.
        long shareBound = (long) (own * (weights / share.weight));
        return sum + Math.max(fair, shareBound);
    }

    /**
     * A request admitted from this lane ended having used {@code unusedNanos} less of the
     * deployment than its reservation cost (negative: more, an overage). The shared bucket refunds
     * it to the whole fleet; while this replica shares refills with others ({@link FleetShare}),
     * its credit takes the same refund, or replicas paying reservations out of credit while the
     * bucket is refunded actual usage leave the bucket refilling unused.
     */
    synchronized void creditBack(long unusedNanos) {
        if (creditAt != Long.MIN_VALUE) {
            fleetCredit += unusedNanos;
        }
    }

    /** Time {@code amounts} alone occupy the deployment: the largest share of any rate it limits. */
    long costNanos(long[] amounts) {
        BucketPlan p = deploymentPlan;
        double worst = 0;
        if (p != null) {
            for (int d = 0; d < Dimension.COUNT; d++) {
                if (DIMS[d].kind() == Dimension.Kind.RATE && p.limits(DIMS[d]) && amounts[d] > 0) {
                    worst = Math.max(worst, amounts[d] / p.refillPerNano(DIMS[d]));
                }
            }
        }
        return (long) worst;
    }

    synchronized Waiter enqueue(AdmissionRequest request, long[] amounts, TenantShare share, long now, long giveUpAt) {
        int c = request.trafficClass().ordinal();
        long cost = costNanos(amounts);
        double weight = share.weight;
        double start = Math.max(virtualTime[c], share.lastFinishTag[c]);
        // The tag advances by the request's cost over the tenant's weight: heavier tenants' tags grow slower.
        double span = Math.max(1.0, cost) / weight;
        share.lastFinishTag[c] = start + span;
        Waiter w = new Waiter(request, amounts, share, now, giveUpAt, start, seq++, cost);
        w.span = span;
        flows.get(c).computeIfAbsent(share.tenant, t -> new Flow()).addLast(w);
        queued.incrementAndGet(c);
        queuedCostNanos[c] += cost;
        earliestGiveUp = Math.min(earliestGiveUp, giveUpAt);
        wakeAt = Math.min(wakeAt, giveUpAt);
        return w;
    }

    synchronized long wakeAt() {
        return anyQueued() ? wakeAt : Long.MAX_VALUE;
    }

    void recordHold(long nanos) {
        // Exponential average of how long admitted requests hold their slot: the retry hint for
        // concurrency. Every settlement on every thread passes here, so it is written only when a
        // sample moves it by more than 1/64 (samples within about 16% of it do not): a shared
        // line written on every call would move between cores on every call.
        double average = holdNanosAverage;
        double next = average * 0.9 + nanos * 0.1;
        if (Math.abs(next - average) > average / 64) {
            holdNanosAverage = next;
        }
    }

    long holdNanosAverage() {
        return (long) holdNanosAverage;
    }

    /**
     * Admits what fits now, in class order and fair order within a class, and gives up on waiters
     * past their budget. Completions are added to {@code done} to run after the monitor is released.
     */
    synchronized void pump(QuotaGovernor governor, long now, List<Runnable> done) {
        if (!anyQueued()) {
            wakeAt = Long.MAX_VALUE;
            return;
        }
        // Anyone asking for the next wake-up while this pump admits (the governor announces as it
        // goes) must not be told this lane's old time, which may be in the past.
        wakeAt = Long.MAX_VALUE;
        if (now >= earliestGiveUp) {
            giveUp(governor, now, done);
        }
        long retryAt = Long.MAX_VALUE;
        heldBy = null;
        // Other replicas queue for this deployment too: this one takes only its part of the refill.
        long others = FleetShare.sumTo(othersQueued, CLASSES.length - 1);
        double earning = 0;
        if (others > 0) {
            earning = FleetShare.part(FleetShare.sumTo(queuedCostNanos, CLASSES.length - 1), others) * slowestFactor();
        } else {
            creditAt = Long.MIN_VALUE;
            fleetCredit = 0;
        }
        boolean accrued = false;
        outer:
        for (int c = 0; c < CLASSES.length; c++) {
            if (queued.get(c) == 0) {
                continue;
            }
            Set<String> blocked = null;
            while (true) {
                Waiter w = pick(c, blocked, now);
                if (w == null) {
                    break;
                }
                if (others > 0) {
                    if (!accrued) {
                        fleetCredit = FleetShare.accrue(fleetCredit, creditAt, now, earning, w.costNanos);
                        creditAt = now;
                        accrued = true;
                    }
                    // Within a nanosecond: the credit's floating-point sum must not hold a waiter a whole wake-up longer.
                    if (fleetCredit + 1 < w.costNanos) {
                        // This replica's part is spent: the rest of the refill belongs to the others' queues.
                        retryAt = Math.min(retryAt, now + FleetShare.untilCovered(fleetCredit, w.costNanos, earning));
                        break outer;
                    }
                }
                ReserveOutcome o;
                try {
                    o = governor.tryReserve(w.request, w.amounts);
                } catch (RuntimeException storeFailure) {
                    // A remote store that cannot answer fails this waiter, not the whole pump: the
                    // others already admitted in it must still hear so.
                    removeUnserved(c, w);
                    done.add(() -> w.outcome.completeExceptionally(storeFailure));
                    continue;
                }
                if (o instanceof ReserveOutcome.Granted g) {
                    if (others > 0) {
                        fleetCredit -= w.costNanos;
                    }
                    remove(c, w);
                    virtualTime[c] = Math.max(virtualTime[c], w.startTag);
                    noteRevocations(c, w, now);
                    long waited = now - w.enqueuedAt;
                    boolean ownLimitsOnly = w.lastShort.map(s -> s.scope().level().ownedByTenant()).orElse(false);
                    Decision.Final admitted = governor.admitted(this, w.request, g, w.amounts, w.share, waited,
                            ownLimitsOnly ? 0 : waited, now);
                    done.add(() -> w.outcome.complete(admitted));
                    continue;
                }
                ReserveOutcome.Short s = (ReserveOutcome.Short) o;
                w.lastShort = Optional.of(s);
                if (s.neverFits() || s.dailyCap()) {
                    removeUnserved(c, w);
                    Rejection r = s.neverFits() ? Rejections.tooLarge(s) : Rejections.dailyCapSpent(s);
                    done.add(() -> w.outcome.complete(governor.rejected(w.request, r)));
                    continue;
                }
                if (s.waitKnown()) {
                    retryAt = Math.min(retryAt, now + s.waitNanos());
                }
                if (s.scope().level().ownedByTenant()) {
                    // Short on its own tenant's bucket: others in the queue must not wait behind it.
                    if (blocked == null) {
                        blocked = new HashSet<>();
                    }
                    blocked.add(w.share.tenant);
                    continue;
                }
                // Short on shared capacity: whoever comes next in fair order would only take it from this one.
                heldBy = s;
                break outer;
            }
        }
        wakeAt = Math.min(retryAt, earliestGiveUp);
    }

    /** The waiter to serve next in class {@code c}: below-guarantee tenants first, then by start tag, then arrival. */
    private Waiter pick(int c, Set<String> blocked, long now) {
        Waiter best = null;
        boolean bestBelow = false;
        for (Flow flow : flows.get(c).values()) {
            Waiter head = flow.peekFirst();
            if (head == null || (blocked != null && blocked.contains(head.share.tenant))) {
                continue;
            }
            boolean below = head.share.belowGuarantee(now);
            if (best == null || (below && !bestBelow)
                    || (below == bestBelow && (head.startTag < best.startTag
                            || (head.startTag == best.startTag && head.seq < best.seq)))) {
                best = head;
                bestBelow = below;
            }
        }
        return best;
    }

    /** Other tenants that waited longer but were passed over for fairness were borrowing: their borrowing is revoked. */
    private void noteRevocations(int c, Waiter served, long now) {
        for (Flow flow : flows.get(c).values()) {
            Waiter head = flow.peekFirst();
            if (head != null && head.share != served.share && head.seq < served.seq) {
                head.share.recordRevoked(now);
            }
        }
    }

    /**
     * A waiter that leaves unserved (its deadline passed, it can never fit) gives back the place in
     * fair order it took: its tenant's later waiters in the class, and its next request, move
     * earlier by its span. Otherwise a tenant whose requests time out because its share is small
     * would be charged for work it never got, and fall further behind with every timeout.
     */
    private void forgetTag(int c, Waiter w) {
        Flow flow = flows.get(c).get(w.share.tenant);
        if (flow != null) {
            flow.retreat(new double[] {w.startTag}, new double[] {w.span}, 1);
        }
        w.share.lastFinishTag[c] -= w.span;
    }

    /**
     * Empties the lane: every waiter leaves unserved (its tenant's place in fair order is given
     * back) and is returned in class order, then arrival order, for its caller to answer. The
     * lane's deployment is gone from the configuration, so nothing will ever be served here.
     */
    synchronized List<Waiter> evictAll() {
        List<Waiter> out = new java.util.ArrayList<>();
        for (int c = 0; c < CLASSES.length; c++) {
            // A copy: a flow leaves the map as its last waiter does.
            for (Flow flow : new java.util.ArrayList<>(flows.get(c).values())) {
                for (Waiter w = flow.peekFirst(); w != null; w = flow.peekFirst()) {
                    out.add(w);
                    removeUnserved(c, w);
                }
            }
        }
        wakeAt = Long.MAX_VALUE;
        return out;
    }

    /**
     * Takes {@code w} out of its queue unserved, as if it had never come (its tenant's place in
     * fair order is given back); false when it already left (served, given up on, withdrawn).
     */
    synchronized boolean withdraw(Waiter w) {
        if (!w.inQueue) {
            return false;
        }
        removeUnserved(w.request.trafficClass().ordinal(), w);
        return true;
    }

    /** Removes a waiter that leaves without being served. */
    private void removeUnserved(int c, Waiter w) {
        remove(c, w);
        forgetTag(c, w);
    }

    /** Removes a waiter; whether it was its flow's last. */
    private boolean remove(int c, Waiter w) {
        w.inQueue = false;
        Flow flow = flows.get(c).get(w.share.tenant);
        boolean last = flow.remove(w);
        if (flow.isEmpty()) {
            flows.get(c).remove(w.share.tenant);
        }
        queued.decrementAndGet(c);
        queuedCostNanos[c] -= w.costNanos;
        return last;
    }

    private void giveUp(QuotaGovernor governor, long now, List<Runnable> done) {
        long next = Long.MAX_VALUE;
        for (int c = 0; c < CLASSES.length; c++) {
            int k = c;
            Iterator<Flow> flowsIt = flows.get(c).values().iterator();
            while (flowsIt.hasNext()) {
                Flow flow = flowsIt.next();
                List<Waiter> left = new java.util.ArrayList<>();
                next = Math.min(next, flow.removeExpired(now, (w, wasLast) -> {
                    w.inQueue = false;
                    queued.decrementAndGet(k);
                    queuedCostNanos[k] -= w.costNanos;
                    left.add(w);
                    long retry = w.lastShort.filter(ReserveOutcome.Short::waitKnown)
                            .map(ReserveOutcome.Short::waitNanos).orElse(holdNanosAverage());
                    Rejection r = Rejections.timedOut(w, now, retry, pauseLeftOf(w.lastShort, now) > 0,
                            governor.config().reserveHolders(w.request.trafficClass()));
                    done.add(() -> w.outcome.complete(governor.rejected(w.request, r)));
                }));
                if (!left.isEmpty()) {
                    // The ones that left, in arrival order, which is tag order: one pass moves the rest.
                    double[] tags = new double[left.size()];
                    double[] spans = new double[left.size()];
                    for (int i = 0; i < tags.length; i++) {
                        Waiter w = left.get(i);
                        tags[i] = w.startTag;
                        spans[i] = w.span;
                        w.share.lastFinishTag[k] -= w.span;
                    }
                    flow.retreat(tags, spans, tags.length);
                }
                if (flow.isEmpty()) {
                    flowsIt.remove();
                }
            }
        }
        earliestGiveUp = next;
    }

    /** Guaranteed and used rates per tenant, for the snapshot. */
    synchronized GovernorSnapshot.LaneSnapshot snapshot(long now, java.util.function.Function<String, ScopeSettings> tenantSettings) {
        Map<TrafficClass, Integer> q = new java.util.EnumMap<>(TrafficClass.class);
        for (TrafficClass c : CLASSES) {
            q.put(c, queued.get(c.ordinal()));
        }
        BucketPlan p = deploymentPlan;
        double activeWeight = 0;
        for (TenantShare s : shares.values()) {
            if (active(s, now)) {
                activeWeight += s.weight;
            }
        }
        List<GovernorSnapshot.ShareSnapshot> out = new java.util.ArrayList<>();
        for (TenantShare s : shares.values()) {
            Map<Dimension, Double> used = new java.util.EnumMap<>(Dimension.class);
            Map<Dimension, Double> guaranteed = new java.util.EnumMap<>(Dimension.class);
            Map<Dimension, Double> borrowed = new java.util.EnumMap<>(Dimension.class);
            Limits explicit = tenantSettings.apply(s.tenant).guaranteed();
            for (Dimension d : DIMS) {
                if (d.kind() != Dimension.Kind.RATE || p == null || !p.limits(d)) {
                    continue;
                }
                double rate = s.ratePerMinute(d, now);
                double share = activeWeight > 0 && active(s, now) ? s.weight / activeWeight * p.amount(d) : 0;
                double g = Math.max(share, explicit.get(d).map(l -> (double) l.amount()).orElse(0.0));
                used.put(d, rate);
                guaranteed.put(d, g);
                borrowed.put(d, Math.max(0, rate - g));
            }
            long revoked = s.revokedAt();
            out.add(new GovernorSnapshot.ShareSnapshot(s.tenant, s.weight, guaranteed, used, borrowed,
                    revoked < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(revoked), s.revocations(),
                    s.admitted()));
        }
        out.sort(java.util.Comparator.comparing(GovernorSnapshot.ShareSnapshot::tenant));
        return new GovernorSnapshot.LaneSnapshot(deployment, q, out);
    }

    private boolean active(TenantShare s, long now) {
        if (s.ratePerMinute(Dimension.REQUESTS, now) > 0.5) {
            return true;
        }
        for (int c = 0; c < CLASSES.length; c++) {
            if (flows.get(c).containsKey(s.tenant)) {
                return true;
            }
        }
        return false;
    }
}
