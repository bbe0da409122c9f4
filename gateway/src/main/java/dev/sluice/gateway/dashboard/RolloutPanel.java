package dev.sluice.gateway.dashboard;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutJson;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.runtime.rollout.WarmupJson;
import dev.sluice.runtime.rollout.Warmups;
import java.util.List;

/**
 * The dashboard's rollouts and warm-ups: where each stands, and its latest decisions with the
 * figures that drove them (as the admin API shows a decision). Only in the whole view: a rollout
 * moves a profile every tenant shares, so a partner does not see it.
 */
final class RolloutPanel {

    /** Decisions shown per rollout or warm-up, latest first. */
    static final int DECISIONS = 5;

    private RolloutPanel() {}

    static void rollouts(ArrayNode out, SluiceRuntime runtime) {
        for (RolloutView v : runtime.rollouts().inspect()) {
            ObjectNode n = out.addObject().put("rollout", v.id()).put("profile", v.profile()).put("from", v.from())
                    .put("to", v.to()).put("status", v.status().wireName()).put("stage", v.stage())
                    .put("stages", v.stages()).put("percent", v.percent()).put("failed_intervals", v.failedIntervals());
            ArrayNode decisions = n.putArray("decisions");
            List<RolloutDecision> h = v.history();
            for (int i = h.size() - 1; i >= Math.max(0, h.size() - DECISIONS); i--) {
                decisions.add(RolloutJson.decision(h.get(i)));
            }
        }
    }

    static void warmups(ArrayNode out, SluiceRuntime runtime) {
        for (Warmups.View v : runtime.warmups().inspect()) {
            ObjectNode n = out.addObject().put("warmup", v.id()).put("tenant", v.tenant())
                    .put("status", v.status().wireName()).put("grown_minutes", v.grown());
            ObjectNode rates = n.putObject("rates");
            v.rates().forEach((d, r) -> rates.put(d.limiterName(), r));
            ArrayNode decisions = n.putArray("decisions");
            List<WarmupDecision> h = v.history();
            for (int i = h.size() - 1; i >= Math.max(0, h.size() - DECISIONS); i--) {
                decisions.add(WarmupJson.decision(h.get(i)));
            }
        }
    }
}
