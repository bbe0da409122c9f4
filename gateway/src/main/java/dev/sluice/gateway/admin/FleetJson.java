package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.adapt.FleetAdaptive;
import dev.sluice.adapt.Mode;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.FleetPeers;
import dev.sluice.runtime.SluiceRuntime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code fleet} part of {@code GET /admin/deployments/{id}}: each live replica's own word on
 * the deployment (mode, shedding depth, probe, last protected caller, queued cost, ramp stage),
 * this one first, and the merge admission applies. The adaptive part is merged by
 * {@link FleetAdaptive#merge}, the rule the controllers themselves apply, so the view cannot
 * disagree with admission.
 */
final class FleetJson {

    private FleetJson() {}

    /** Adds {@code fleet} to {@code out} when this replica is part of a fleet. */
    static void add(ObjectNode out, SluiceRuntime runtime, String id) {
        FleetPeers peers = runtime.fleet();
        if (peers.self().isEmpty()) {
            return;
        }
        var controller = runtime.controller(id);
        Map<String, Long> ownQueued = new LinkedHashMap<>();
        for (var q : runtime.governor().queuedDemand()) {
            if (q.deployment().equals(id)) {
                long[] cost = q.costNanosByClass();
                for (var c : TrafficClass.values()) {
                    if (cost[c.ordinal()] > 0) {
                        ownQueued.put(c.wireName(), cost[c.ordinal()]);
                    }
                }
            }
        }
        List<FleetPeers.Peer> all = new ArrayList<>();
        all.add(new FleetPeers.Peer(peers.self(), controller.map(c -> c.mode().wireName()).orElse("normal"), ownQueued,
                controller.map(c -> c.rampStage()).orElse(-1),
                controller.map(c -> c.published(peers.self())).orElse(FleetAdaptive.CALM)));
        all.addAll(peers.peers(id));
        ObjectNode fleet = out.putObject("fleet");
        ArrayNode replicas = fleet.putArray("replicas");
        String severest = "normal";
        FleetAdaptive merged = FleetAdaptive.CALM;
        Map<String, Long> queued = new TreeMap<>();
        int lowestStage = Integer.MAX_VALUE;
        for (var p : all) {
            ObjectNode n = replicas.addObject().put("replica", p.replica()).put("self", p == all.get(0))
                    .put("mode", p.mode()).put("ramp_stage", p.rampStage());
            adaptive(n, p.adaptive());
            ObjectNode q = n.putObject("queued_ms");
            p.queuedNanos().forEach((c, v) -> q.put(c, v / 1_000_000));
            p.queuedNanos().forEach((c, v) -> queued.merge(c, v, Long::sum));
            if (severity(p.mode()) > severity(severest)) {
                severest = p.mode();
            }
            merged = merged.merge(p.adaptive());
            if (p.rampStage() >= 0) {
                lowestStage = Math.min(lowestStage, p.rampStage());
            }
        }
        ObjectNode m = fleet.putObject("merged").put("live_replicas", all.size()).put("mode", severest);
        adaptive(m, merged);
        ObjectNode q = m.putObject("queued_ms");
        queued.forEach((c, v) -> q.put(c, v / 1_000_000));
        if (lowestStage != Integer.MAX_VALUE) {
            m.put("ramp_stage", lowestStage);
        }
    }

    /**
     * The shedding depth ({@code deep}: the shed-last classes are refused too; {@code shallow}; or
     * {@code none} outside load shedding), the probe (null when none) and how long ago a caller
     * load shedding protects last asked (null when none did within the window).
     */
    private static void adaptive(ObjectNode n, FleetAdaptive a) {
        n.put("shedding", a.mode() != Mode.LOAD_SHEDDING ? "none" : a.shedDeep() ? "deep" : "shallow");
        if (a.probe().isEmpty()) {
            n.putNull("probe");
        } else {
            var p = a.probe().get();
            n.putObject("probe").put("holder", p.holder()).put("starts_in_ms", p.startsInNanos() / 1_000_000)
                    .put("cause", p.cause());
        }
        if (a.protectedAskedAgoNanos() == FleetAdaptive.NEVER) {
            n.putNull("protected_asked_ms_ago");
        } else {
            n.put("protected_asked_ms_ago", a.protectedAskedAgoNanos() / 1_000_000);
        }
    }

    private static int severity(String mode) {
        for (var m : Mode.values()) {
            if (m.wireName().equals(mode)) {
                return m.ordinal();
            }
        }
        return 0;
    }
}
