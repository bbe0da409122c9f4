package dev.sluice.runtime.control;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.WarmupConfig;
import dev.sluice.runtime.rollout.RolloutJson;
import dev.sluice.runtime.rollout.WarmupJson;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The control journal folded over a configuration: each recorded change applied again, oldest
 * first, as the admin call that made it applied it. The configuration is changed as a value; what
 * lives beside it in the runtime (pauses, retired secrets, rollout and warm-up state) is restored
 * in place. A change that no longer applies (the file removed what it named) is skipped and the
 * file's version stands. Used at start, when following another replica, and on a reload.
 */
final class JournalReplay {

    private final SluiceRuntime runtime;

    JournalReplay(SluiceRuntime runtime) {
        this.runtime = runtime;
    }

    SluiceConfig fold(SluiceConfig base, List<ControlJournal.Replayed> changes) {
        SluiceConfig c = base;
        for (ControlJournal.Replayed r : changes) {
            try {
                c = replayOne(c, r.action(), ControlJson.JSON.readTree(r.state()));
            } catch (EditRefused | java.io.IOException | IllegalArgumentException skipped) {
                // The file changed under the journal; the file's version stands.
            }
        }
        return c;
    }

    private SluiceConfig replayOne(SluiceConfig c, String action, JsonNode s) {
        switch (action) {
            case "org.create", "org.update" -> {
                String id = s.path("id").asText();
                Limits l = ControlJson.limits(s.path("limits"), "limits");
                return c.orgs().containsKey(id) ? TreeEdits.setOrgLimits(c, id, l) : TreeEdits.createOrg(c, id, l);
            }
            case "tenant.create", "tenant.update" -> {
                String id = s.path("id").asText();
                double w = s.path("weight").asDouble(1.0);
                Limits g = ControlJson.limits(s.path("guaranteed"), "guaranteed");
                Limits l = ControlJson.limits(s.path("limits"), "limits");
                return TreeEdits.tenant(c, id).isPresent()
                        ? TreeEdits.updateTenant(c, id, Optional.of(w), Optional.of(g), Optional.of(l))
                        : TreeEdits.createTenant(c, s.path("org").asText(), id, w, g, l);
            }
            case "team.create", "team.update" -> {
                String tenant = s.path("tenant").asText();
                String name = s.path("name").asText();
                Limits l = ControlJson.limits(s.path("limits"), "limits");
                return TreeEdits.tenant(c, tenant).map(t -> t.tenant().teams().containsKey(name)).orElse(false)
                        ? TreeEdits.setTeamLimits(c, tenant, name, l) : TreeEdits.createTeam(c, tenant, name, l);
            }
            case "key.create", "key.update", "key.rotate" -> {
                return replayKey(c, s);
            }
            case "org.delete" -> {
                String id = s.path("id").asText();
                // What the API deleted stays deleted, with whatever the file has put below it since.
                return c.orgs().containsKey(id) ? TreeEdits.deleteOrg(c, id, true) : c;
            }
            case "tenant.delete" -> {
                String id = s.path("id").asText();
                return TreeEdits.tenant(c, id).isPresent() ? TreeEdits.deleteTenant(c, id, true) : c;
            }
            case "team.delete" -> {
                String tenant = s.path("tenant").asText();
                String name = s.path("id").asText();
                return TreeEdits.tenant(c, tenant).map(t -> t.tenant().teams().containsKey(name)).orElse(false)
                        ? TreeEdits.deleteTeam(c, tenant, name, true) : c;
            }
            case "key.delete" -> {
                String id = s.path("id").asText();
                return TreeEdits.key(c, id).isPresent() ? TreeEdits.deleteKey(c, id) : c;
            }
            case "pause" -> {
                Scope scope = ControlPlane.scope(s.path("scope").asText());
                Optional<Instant> until = s.path("until").isTextual() ? Optional.of(Instant.parse(s.path("until").asText()))
                        : Optional.empty();
                runtime.pauses().put(new Pause(scope, s.path("reason").asText(), until, s.path("by").asText(),
                        Instant.parse(s.path("at").asText())));
                return c;
            }
            case "resume" -> {
                runtime.pauses().remove(ControlPlane.scope(s.path("scope").asText()));
                return c;
            }
            case "config.reload" -> {
                return c;
            }
            case "prices.set" -> {
                return c.withPrices(ControlJson.prices(s.path("prices"), "prices"));
            }
            case "profile.update" -> {
                String id = s.path("id").asText();
                ProfileConfig p = c.profiles().get(id);
                if (p == null) {
                    return c; // removed from the file since
                }
                try {
                    return CatalogueEdits.withProfile(c, ConfigLoader.patchProfile(p, CatalogueEdits.only(s, ConfigLoader.PROFILE_ROUTING), c.deployments()));
                } catch (ConfigException e) {
                    return c; // a deployment it names was removed from the file: the file's version stands
                }
            }
            case "profile.create" -> {
                try {
                    return CatalogueEdits.withProfile(c, ConfigLoader.profile(s.path("id").asText(), CatalogueEdits.only(s, ConfigLoader.PROFILE),
                            c.deployments()));
                } catch (ConfigException e) {
                    return c;
                }
            }
            case "rollout.create" -> {
                String id = s.path("id").asText();
                try {
                    RolloutConfig r = ConfigLoader.rollout(id, CatalogueEdits.only(s, ConfigLoader.ROLLOUT), c);
                    boolean profileFree = c.rollouts().stream().noneMatch(o -> o.profile().equals(r.profile())
                            && !o.id().equals(id));
                    return profileFree ? CatalogueEdits.withRollout(c, r) : c;
                } catch (ConfigException e) {
                    return c; // a profile or deployment it names was removed from the file since
                }
            }
            case "rollout.delete" -> {
                String id = s.path("id").asText();
                runtime.rollouts().forget(id);
                return CatalogueEdits.withoutRollout(c, id);
            }
            case "rollout.state" -> {
                runtime.rollouts().restore(s.path("id").asText(), RolloutJson.readState(s), RolloutJson.readDecision(s));
                return c;
            }
            case "warmup.create" -> {
                String id = s.path("id").asText();
                try {
                    WarmupConfig w = ConfigLoader.warmup(id, CatalogueEdits.only(s, ConfigLoader.WARMUP), c);
                    boolean tenantFree = c.warmups().stream().noneMatch(o -> o.tenant().equals(w.tenant())
                            && !o.id().equals(id));
                    return tenantFree ? CatalogueEdits.withWarmup(c, w) : c;
                } catch (ConfigException e) {
                    return c; // its tenant, or the limit it grows to, was removed since
                }
            }
            case "warmup.delete" -> {
                String id = s.path("id").asText();
                runtime.warmups().forget(id);
                return CatalogueEdits.withoutWarmup(c, id);
            }
            case "warmup.state" -> {
                runtime.warmups().restore(s.path("id").asText(), WarmupJson.readState(s), WarmupJson.readDecision(s));
                return c;
            }
            case "profile.delete" -> {
                String id = s.path("id").asText();
                return c.profiles().containsKey(id) && CatalogueEdits.users(c, id).isEmpty() ? CatalogueEdits.withoutProfile(c, id) : c;
            }
            default -> throw new IllegalArgumentException("action: " + action);
        }
    }

    private SluiceConfig replayKey(SluiceConfig c, JsonNode s) {
        String id = s.path("id").asText();
        String tenant = s.path("tenant").asText();
        String team = tenant + "/" + s.path("team").asText();
        Optional<byte[]> hash = s.hasNonNull("sha256") ? Optional.of(HexFormat.of().parseHex(s.path("sha256").asText()))
                : Optional.empty();
        List<String> profiles = new ArrayList<>();
        s.path("profiles").forEach(p -> profiles.add(p.asText()));
        profiles.removeIf(p -> !c.profiles().containsKey(p));
        TrafficClass cls = TrafficClass.byWireName(s.path("class").asText()).orElse(TrafficClass.INTERACTIVE);
        TrafficClass max = TrafficClass.byWireName(s.path("max_class").asText()).orElse(cls);
        Optional<Duration> deadline = s.has("deadline_ms") ? Optional.of(Duration.ofMillis(s.path("deadline_ms").asLong()))
                : Optional.empty();
        Limits l = ControlJson.limits(s.path("limits"), "limits");
        String org = TreeEdits.tenant(c, tenant).orElseThrow(() -> TreeEdits.notFound("tenant", tenant)).org().id();
        KeyConfig k = new KeyConfig(id, org, tenant, team, hash, s.path("secret_source").asText("admin api"), profiles,
                cls, max, deadline, l, false);
        if (s.hasNonNull("retired_sha256")) {
            Instant until = Instant.parse(s.path("retired_until").asText());
            runtime.retiredSecrets().add(new RetiredSecrets.Retired(id, HexFormat.of().parseHex(
                    s.path("retired_sha256").asText()), until));
        }
        Optional<TreeEdits.KeyAt> at = TreeEdits.key(c, id);
        if (at.isPresent() && at.get().key().team().equals(team)) {
            return TreeEdits.updateKey(c, id, old -> k);
        }
        return TreeEdits.createKey(at.isPresent() ? TreeEdits.deleteKey(c, id) : c, k);
    }
}
