package dev.sluice.runtime.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.WarmupConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Changes of a configuration's profiles, rollouts and warm-ups as pure functions, a configuration
 * in and the changed one out: what an admin call and the replay of its journal entry both apply.
 * The checks (ids, definitions, who may) are the callers'; these only put the object in or take it out.
 */
final class CatalogueEdits {

    private CatalogueEdits() {}

    /** The keys and rollouts that name profile {@code id}. */
    static List<String> users(SluiceConfig c, String id) {
        List<String> out = new ArrayList<>();
        c.keys().stream().filter(k -> k.profiles().contains(id)).forEach(k -> out.add("key " + k.id()));
        c.rollouts().stream().filter(r -> r.profile().equals(id)).forEach(r -> out.add("rollout " + r.id()));
        return out;
    }

    static SluiceConfig withoutProfile(SluiceConfig c, String id) {
        java.util.Map<String, ProfileConfig> profiles = new java.util.LinkedHashMap<>(c.profiles());
        profiles.remove(id);
        return c.withProfiles(profiles);
    }

    static SluiceConfig withProfile(SluiceConfig c, ProfileConfig p) {
        java.util.Map<String, ProfileConfig> profiles = new java.util.LinkedHashMap<>(c.profiles());
        profiles.put(p.id(), p);
        return c.withProfiles(profiles);
    }

    static SluiceConfig withRollout(SluiceConfig c, RolloutConfig r) {
        List<RolloutConfig> rollouts = new ArrayList<>();
        c.rollouts().stream().filter(o -> !o.id().equals(r.id())).forEach(rollouts::add);
        rollouts.add(r);
        return c.withRollouts(rollouts);
    }

    static SluiceConfig withoutRollout(SluiceConfig c, String id) {
        return c.withRollouts(c.rollouts().stream().filter(o -> !o.id().equals(id)).toList());
    }

    static SluiceConfig withWarmup(SluiceConfig c, WarmupConfig w) {
        List<WarmupConfig> warmups = new ArrayList<>();
        c.warmups().stream().filter(o -> !o.id().equals(w.id())).forEach(warmups::add);
        warmups.add(w);
        return c.withWarmups(warmups);
    }

    static SluiceConfig withoutWarmup(SluiceConfig c, String id) {
        return c.withWarmups(c.warmups().stream().filter(o -> !o.id().equals(id)).toList());
    }

    /** The fields of {@code s} among {@code fields}: a journal may add its own to a state (the change relay's relay_id). */
    static ObjectNode only(JsonNode s, java.util.Set<String> fields) {
        ObjectNode out = ControlJson.JSON.createObjectNode();
        for (String field : fields) {
            if (s.has(field)) {
                out.set(field, s.get(field));
            }
        }
        return out;
    }
}
