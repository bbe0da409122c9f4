package dev.sluice.adapt;

import java.util.Locale;
import java.util.Optional;

/**
 * The mode machine's rule, a pure function of the current mode, how long it has held, the
 * readings and {@code now}:
 * <ul>
 *   <li>Up: the most defensive mode whose enter threshold any signal crosses is taken at once,
 *       skipping modes in between; pressure must be met without delay. Load shedding also needs
 *       sustained refusals ({@link Readings#sustained()}): one refusal never sheds anyone.
 *   <li>Down: one mode at a time, and only after the current mode has held for the minimum dwell
 *       with every signal past that mode's exit threshold; recovery is cautious.
 * </ul>
 * Signals are looked at in a fixed order (multiplier, 429 ratio, queue pressure, latency), so the
 * same readings always give the same transition and reason.
 */
final class ModePolicy {

    private ModePolicy() {}

    /**
     * What the controller sees at one evaluation.
     *
     * @param multiplier the multiplier relative to its ceiling; 1 when the window holds no refusal
     * @param limitedRatio 429s and overloads among answers; 0 when there are too few answers
     * @param queuePressure mean share of the wait budget used; 0 when too few waits were seen
     * @param latencyRatio window p95 over the baseline; 0 when unknown
     * @param sustained whether provider refusals have been sustained long enough to shed load
     *     ({@link SheddingConfig}); without it brownout is the most defensive mode
     */
    record Readings(double multiplier, double limitedRatio, double queuePressure, double latencyRatio,
            boolean sustained) {

        /** Readings under sustained pressure (the shedding threshold alone decides). */
        Readings(double multiplier, double limitedRatio, double queuePressure, double latencyRatio) {
            this(multiplier, limitedRatio, queuePressure, latencyRatio, true);
        }

        Readings withSustained(boolean next) {
            return new Readings(multiplier, limitedRatio, queuePressure, latencyRatio, next);
        }
    }

    /** A decided transition. */
    record Change(Mode to, String reason) {}

    private static final Mode[] DEFENSIVE_DESCENDING = {Mode.LOAD_SHEDDING, Mode.BROWNOUT, Mode.CAUTION};

    static Optional<Change> next(Mode current, long sinceNanos, Readings r, long now, ModeConfig c) {
        for (Mode m : DEFENSIVE_DESCENDING) {
            if (!m.above(current)) {
                break;
            }
            if (m == Mode.LOAD_SHEDDING && !r.sustained()) {
                continue;
            }
            Optional<String> why = entering(m, r, c);
            if (why.isPresent()) {
                return Optional.of(new Change(m, why.get()));
            }
        }
        if (current == Mode.NORMAL || now - sinceNanos < c.minDwell().toNanos()) {
            return Optional.empty();
        }
        boolean calm = c.multiplier().exits(current, r.multiplier())
                && c.limitedRatio().exits(current, r.limitedRatio())
                && c.queuePressure().exits(current, r.queuePressure())
                && c.latencyRatio().exits(current, r.latencyRatio());
        if (!calm) {
            return Optional.empty();
        }
        Mode lower = Mode.values()[current.ordinal() - 1];
        return Optional.of(new Change(lower, String.format(Locale.ROOT,
                "calm for %.0f s: multiplier %.2f, 429 ratio %.3f, queue pressure %.2f, latency x%.2f",
                (now - sinceNanos) / 1e9, r.multiplier(), r.limitedRatio(), r.queuePressure(), r.latencyRatio())));
    }

    private static Optional<String> entering(Mode m, Readings r, ModeConfig c) {
        if (c.multiplier().enters(m, r.multiplier())) {
            return Optional.of(String.format(Locale.ROOT, "multiplier %.2f < %.2f", r.multiplier(),
                    c.multiplier().enter().of(m)));
        }
        if (c.limitedRatio().enters(m, r.limitedRatio())) {
            return Optional.of(String.format(Locale.ROOT, "429 ratio %.3f >= %.3f", r.limitedRatio(),
                    c.limitedRatio().enter().of(m)));
        }
        if (c.queuePressure().enters(m, r.queuePressure())) {
            return Optional.of(String.format(Locale.ROOT, "queue pressure %.2f >= %.2f", r.queuePressure(),
                    c.queuePressure().enter().of(m)));
        }
        if (c.latencyRatio().enters(m, r.latencyRatio())) {
            return Optional.of(String.format(Locale.ROOT, "latency p95 x%.2f >= %.2f", r.latencyRatio(),
                    c.latencyRatio().enter().of(m)));
        }
        return Optional.empty();
    }
}
