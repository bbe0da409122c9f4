package dev.sluice.runtime.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules a reload that adds, removes or replaces deployments must pass before anything
 * changes. The file validates on its own ({@code ConfigLoader}); what it cannot see is what the
 * admin API made over it, which wins for what it touched: a profile whose deployments were set
 * through the API, or a rollout, naming a deployment the reload removes. Refused, not silently
 * undone, so that the operator decides which goes.
 */
final class ReloadedDeployments {

    private ReloadedDeployments() {}

    /**
     * Refuses the reload of {@code fresh} over {@code running} when a profile the journal made or
     * routed, or a rollout of {@code next} (the configuration the reload would put in force), names a
     * deployment that {@code fresh} no longer has.
     *
     * @throws EditRefused 422 {@code deployment_in_use} naming the profile's or rollout's field
     */
    static void check(SluiceConfig running, SluiceConfig fresh, List<ControlJournal.Replayed> journal, SluiceConfig next) {
        Set<String> removed = new java.util.LinkedHashSet<>(running.deployments().keySet());
        removed.removeAll(fresh.deployments().keySet());
        if (removed.isEmpty()) {
            return;
        }
        for (Map.Entry<String, List<String>> e : apiProfiles(journal, fresh).entrySet()) {
            for (String d : e.getValue()) {
                if (removed.contains(d)) {
                    throw new EditRefused(EditRefused.Why.INVALID, "deployment_in_use", "profiles." + e.getKey()
                            + ".deployments", "profiles." + e.getKey() + ".deployments: names deployment \"" + d
                            + "\", which this reload removes (expected: deployments of " + fresh.sourceName() + ", "
                            + fresh.deployments().keySet() + "); the profile's deployments were set through the admin "
                            + "API and win over the file: change them first (PATCH /admin/profiles/" + e.getKey()
                            + ") or keep the deployment; nothing was changed");
                }
            }
        }
        for (RolloutConfig r : next.rollouts()) {
            for (String[] end : new String[][] {{"from", r.from()}, {"to", r.to()}}) {
                if (removed.contains(end[1])) {
                    throw new EditRefused(EditRefused.Why.INVALID, "deployment_in_use", "rollouts." + r.id() + "."
                            + end[0], "rollouts." + r.id() + "." + end[0] + ": deployment \"" + end[1] + "\", which this "
                            + "reload removes (expected: a deployment of " + fresh.deployments().keySet() + "); end or "
                            + "delete the rollout first, or keep the deployment; nothing was changed");
                }
            }
        }
    }

    /**
     * The deployments each profile the journal still shapes names, as its last change there set
     * them: a profile created through the API, or one of the file's whose routing the API changed.
     */
    private static Map<String, List<String>> apiProfiles(List<ControlJournal.Replayed> journal, SluiceConfig fresh) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ControlJournal.Replayed r : journal) {
            JsonNode s;
            try {
                s = ControlJson.JSON.readTree(r.state());
            } catch (IOException unreadable) {
                continue; // the replay skips it too
            }
            String id = s.path("id").asText();
            switch (r.action()) {
                case "profile.create" -> out.put(id, named(s));
                case "profile.update" -> {
                    if (out.containsKey(id) || fresh.profiles().containsKey(id)) {
                        out.put(id, named(s));
                    }
                }
                case "profile.delete" -> out.remove(id);
                default -> { }
            }
        }
        return out;
    }

    /** The deployments a profile state names: {@code deployment: a}, or {@code deployments: [a, {deployment: b}]}. */
    private static List<String> named(JsonNode s) {
        List<String> out = new ArrayList<>();
        if (s.path("deployment").isTextual()) {
            out.add(s.path("deployment").asText());
        }
        for (JsonNode t : s.path("deployments")) {
            out.add(t.isTextual() ? t.asText() : t.path("deployment").asText());
        }
        return out;
    }
}
