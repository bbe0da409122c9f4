package dev.sluice.governor;

import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;

/**
 * One tenant's use of one deployment: recent rates (exponentially decayed over
 * {@link #TIME_CONSTANT_NANOS}), its weight and guaranteed minimums, and when its borrowing was
 * last revoked. Guarded by its own monitor; touched once per admission.
 */
final class TenantShare {

    /** Rates are averaged over about ten seconds: long enough to ignore one burst, short enough to see a new tenant at once. */
    static final double TIME_CONSTANT_NANOS = 10e9;

    private static final Dimension[] DIMS = Dimension.values();

    final String tenant;
    volatile double weight;
    volatile Limits guaranteed;

    private final double[] decayedSum = new double[Dimension.COUNT];
    private long lastDecay;
    private boolean started;
    private long revokedAt = -1;
    private long revocations;
    private long admitted;
    final double[] lastFinishTag = new double[TrafficClass.values().length];

    TenantShare(String tenant, double weight, Limits guaranteed) {
        this.tenant = tenant;
        this.weight = weight;
        this.guaranteed = guaranteed;
    }

    synchronized void recordAdmit(long[] amounts, long now) {
        decay(now);
        for (int d = 0; d < Dimension.COUNT; d++) {
            if (DIMS[d].kind() == Dimension.Kind.RATE) {
                decayedSum[d] += amounts[d];
            }
        }
        admitted++;
    }

    synchronized void recordRevoked(long now) {
        revokedAt = now;
        revocations++;
    }

    /** Recent rate on {@code d}, per minute. */
    synchronized double ratePerMinute(Dimension d, long now) {
        decay(now);
        return decayedSum[d.ordinal()] / TIME_CONSTANT_NANOS * 60e9;
    }

    /** Whether some guaranteed minimum is not yet met: such a tenant is served before borrowers. */
    boolean belowGuarantee(long now) {
        Limits g = guaranteed;
        if (g.isEmpty()) {
            return false;
        }
        for (Limit l : g.all()) {
            if (ratePerMinute(l.dimension(), now) < l.amount()) {
                return true;
            }
        }
        return false;
    }

    synchronized long revokedAt() {
        return revokedAt;
    }

    synchronized long revocations() {
        return revocations;
    }

    synchronized long admitted() {
        return admitted;
    }

    private void decay(long now) {
        if (!started) {
            lastDecay = now;
            started = true;
            return;
        }
        long dt = now - lastDecay;
        if (dt <= 0) {
            return;
        }
        double f = Math.exp(-dt / TIME_CONSTANT_NANOS);
        for (int d = 0; d < Dimension.COUNT; d++) {
            decayedSum[d] *= f;
        }
        lastDecay = now;
    }
}
