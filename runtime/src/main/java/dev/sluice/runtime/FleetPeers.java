package dev.sluice.runtime;

import dev.sluice.adapt.FleetAdaptive;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the other replicas of a fleet sharing one quota store last told this one about a
 * deployment: read by the admin API's deployment view. A replica alone has no peers
 * ({@link #none()}); {@code sluice serve} on Redis installs one over its fleet view.
 */
public interface FleetPeers {

    /**
     * One other replica's latest word on a deployment.
     *
     * @param replica its id
     * @param mode its own adaptive mode (wire name)
     * @param queuedNanos what it has queued, configured-rate cost per class wire name
     * @param rampStage its ramp stage; -1 when it runs no adaptive control
     * @param adaptive the rest of what it published of its adaptive control: whether it sheds deep,
     *     the probe it holds after an overload, and how long before its publication a caller that
     *     load shedding protects last asked there ({@link FleetAdaptive#CALM} without adaptive control)
     */
    record Peer(String replica, String mode, Map<String, Long> queuedNanos, int rampStage, FleetAdaptive adaptive) {
        public Peer {
            Objects.requireNonNull(replica, "replica");
            Objects.requireNonNull(mode, "mode");
            queuedNanos = Map.copyOf(queuedNanos);
            Objects.requireNonNull(adaptive, "adaptive");
        }

        /** A peer that told nothing beyond its mode, queue and ramp stage. */
        public Peer(String replica, String mode, Map<String, Long> queuedNanos, int rampStage) {
            this(replica, mode, queuedNanos, rampStage, FleetAdaptive.CALM);
        }
    }

    /** This replica's id in the fleet; empty when it is not part of one. */
    String self();

    /** The other live replicas that published something about {@code deployment}. */
    List<Peer> peers(String deployment);

    /** No fleet: one replica. */
    static FleetPeers none() {
        return new FleetPeers() {
            @Override
            public String self() {
                return "";
            }

            @Override
            public List<Peer> peers(String deployment) {
                return List.of();
            }
        };
    }
}
