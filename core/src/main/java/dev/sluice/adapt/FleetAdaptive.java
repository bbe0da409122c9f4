package dev.sluice.adapt;

import java.util.Objects;
import java.util.Optional;

/**
 * What a deployment's adaptive control looks like from one replica of a fleet sharing a quota
 * store: either what this replica publishes of its own ({@link AdaptiveController#published}), or
 * the merge of what the other replicas published ({@link AdaptiveController#fleet}). Carrying the
 * shedding depth and the probe beside the mode is what makes the mode one per deployment for the
 * fleet: a replica in load shedding only because another one is must shed exactly the classes that
 * one sheds, and after an overload one probe goes to the provider for the whole fleet, not one per
 * replica.
 *
 * <p>Whom shedding protects is the fleet's too: load shedding refuses batch only while a class it
 * still serves asked within the window, and that caller may have reached another replica. So the
 * publication carries how long ago a protected class last asked there.
 *
 * @param mode the most severe mode
 * @param shedDeep whether a replica in load shedding sheds the shed-last classes too
 * @param probe a probe after an overload's pause, when one is in force or about to be
 * @param protectedAskedAgoNanos how long before the publication a class that load shedding still
 *     serves last asked, {@link #NEVER} when none did within the publisher's window: relative, so
 *     that replicas whose clocks differ agree on it
 */
public record FleetAdaptive(Mode mode, boolean shedDeep, Optional<Probe> probe, long protectedAskedAgoNanos) {

    /** No protected class asked within the window. */
    public static final long NEVER = Long.MAX_VALUE;

    /** Nothing above normal, no probe and no protected caller: a calm replica, or no fleet. */
    public static final FleetAdaptive CALM = new FleetAdaptive(Mode.NORMAL, false, Optional.empty());

    public FleetAdaptive {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(probe, "probe");
        shedDeep = shedDeep && mode == Mode.LOAD_SHEDDING;
        if (protectedAskedAgoNanos < 0) {
            throw new IllegalArgumentException(
                    "protectedAskedAgoNanos: " + protectedAskedAgoNanos + " (expected: >= 0)");
        }
    }

    /** A publication in which no protected class asked within the window. */
    public FleetAdaptive(Mode mode, boolean shedDeep, Optional<Probe> probe) {
        this(mode, shedDeep, probe, NEVER);
    }

    /**
     * A probe after an overload: one request at a time goes to the provider, from {@code startsInNanos}
     * after the publication was read until an answer that is not a fault.
     *
     * @param startsInNanos how long until probing starts (0 when it has): the pause left, relative so
     *     that replicas whose clocks differ agree on it
     * @param holder the replica that probes; of several, the fleet's probe is the one of the first id
     * @param cause the overload in words ("the provider answered 503 (overloaded)")
     */
    public record Probe(long startsInNanos, String holder, String cause) {
        public Probe {
            if (startsInNanos < 0) {
                throw new IllegalArgumentException("startsInNanos: " + startsInNanos + " (expected: >= 0)");
            }
            Objects.requireNonNull(holder, "holder");
            Objects.requireNonNull(cause, "cause");
        }
    }

    /**
     * The more severe of the two, of two probes the one whose holder comes first, and the latest
     * protected caller of either.
     */
    public FleetAdaptive merge(FleetAdaptive other) {
        Mode m = other.mode.above(mode) ? other.mode : mode;
        boolean deep = (shedDeep && mode == m) || (other.shedDeep && other.mode == m);
        Optional<Probe> p = probe.isEmpty() ? other.probe
                : other.probe.isEmpty() || probe.get().holder().compareTo(other.probe.get().holder()) <= 0 ? probe
                : other.probe;
        return new FleetAdaptive(m, deep, p, Math.min(protectedAskedAgoNanos, other.protectedAskedAgoNanos));
    }
}
