package dev.sluice.runtime;

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
     */
    record Peer(String replica, String mode, Map<String, Long> queuedNanos, int rampStage) {
        public Peer {
            Objects.requireNonNull(replica, "replica");
            Objects.requireNonNull(mode, "mode");
            queuedNanos = Map.copyOf(queuedNanos);
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
