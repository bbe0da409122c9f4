package dev.sluice.runtime.control;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.ScopeSettings;
import dev.sluice.limits.Limits;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.OrgConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TeamConfig;
import dev.sluice.runtime.config.TenantConfig;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Changes of the organisation > tenant > team > key tree as pure functions: a configuration in, the
 * changed configuration out, or {@link EditRefused} and nothing changed. The same rules as the
 * configuration file (ids unique where the file requires it, weights above zero, guarantees within
 * limits), so a tree built through the API could have been written in the file.
 */
public final class TreeEdits {

    /** Ids made through the API: letters, digits, '.', '_' and '-', at most 64; never ':' or '/' (scope keys use them). */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private TreeEdits() {}

    /** Where a tenant sits. */
    public record TenantAt(OrgConfig org, TenantConfig tenant) {}

    /** Where a key sits. */
    public record KeyAt(OrgConfig org, TenantConfig tenant, TeamConfig team, KeyConfig key) {}

    public static Optional<TenantAt> tenant(SluiceConfig c, String id) {
        for (OrgConfig o : c.orgs().values()) {
            TenantConfig t = o.tenants().get(id);
            if (t != null) {
                return Optional.of(new TenantAt(o, t));
            }
        }
        return Optional.empty();
    }

    public static Optional<KeyAt> key(SluiceConfig c, String id) {
        for (OrgConfig o : c.orgs().values()) {
            for (TenantConfig t : o.tenants().values()) {
                for (TeamConfig team : t.teams().values()) {
                    KeyConfig k = team.keys().get(id);
                    if (k != null) {
                        return Optional.of(new KeyAt(o, t, team, k));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** Checks an id given to the API; {@code field} names it in the error. */
    public static void requireId(String id, String field) {
        if (!ID.matcher(id).matches()) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_id", field, field + ": \"" + id
                    + "\" (expected: 1 to 64 of letters, digits, '.', '_', '-', starting with a letter or digit)");
        }
    }

    public static SluiceConfig createOrg(SluiceConfig c, String id, Limits limits) {
        requireId(id, "id");
        if (c.orgs().containsKey(id)) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "org_exists", "id", "The organisation " + id
                    + " exists already.");
        }
        Map<String, OrgConfig> orgs = new LinkedHashMap<>(c.orgs());
        orgs.put(id, new OrgConfig(id, limits, Map.of()));
        return c.withOrgs(orgs);
    }

    public static SluiceConfig setOrgLimits(SluiceConfig c, String id, Limits limits) {
        OrgConfig o = org(c, id);
        return replaceOrg(c, new OrgConfig(id, limits, o.tenants()));
    }

    /**
     * Adds a tenant below {@code org}.
     *
     * @throws EditRefused when the organisation is unknown (404), the tenant id is taken in any
     *     organisation (409), or weight and guarantees break a rule (422)
     */
    public static SluiceConfig createTenant(SluiceConfig c, String org, String id, double weight, Limits guaranteed,
            Limits limits) {
        requireId(id, "id");
        OrgConfig o = org(c, org);
        tenant(c, id).ifPresent(t -> {
            throw new EditRefused(EditRefused.Why.CONFLICT, "tenant_exists", "id", "The tenant " + id
                    + " exists already (in organisation " + t.org().id() + "); tenant ids are unique across organisations.");
        });
        settings(limits, weight, guaranteed);
        Map<String, TenantConfig> tenants = new LinkedHashMap<>(o.tenants());
        tenants.put(id, new TenantConfig(id, weight, guaranteed, limits, Map.of()));
        return replaceOrg(c, new OrgConfig(o.id(), o.limits(), tenants));
    }

    /** Changes a tenant's weight, guarantees or limits; what is empty stays as it is. */
    public static SluiceConfig updateTenant(SluiceConfig c, String id, Optional<Double> weight,
            Optional<Limits> guaranteed, Optional<Limits> limits) {
        TenantAt at = tenant(c, id).orElseThrow(() -> notFound("tenant", id));
        TenantConfig t = at.tenant();
        double w = weight.orElse(t.weight());
        Limits g = guaranteed.orElse(t.guaranteed());
        Limits l = limits.orElse(t.limits());
        settings(l, w, g);
        return replaceTenant(c, at.org(), new TenantConfig(id, w, g, l, t.teams()));
    }

    public static SluiceConfig createTeam(SluiceConfig c, String tenant, String name, Limits limits) {
        requireId(name, "name");
        TenantAt at = tenant(c, tenant).orElseThrow(() -> notFound("tenant", tenant));
        if (at.tenant().teams().containsKey(name)) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "team_exists", "name", "The tenant " + tenant
                    + " has a team " + name + " already.");
        }
        Map<String, TeamConfig> teams = new LinkedHashMap<>(at.tenant().teams());
        teams.put(name, new TeamConfig(name, tenant + "/" + name, limits, Map.of()));
        return replaceTenant(c, at.org(), withTeams(at.tenant(), teams));
    }

    public static SluiceConfig setTeamLimits(SluiceConfig c, String tenant, String name, Limits limits) {
        TenantAt at = tenant(c, tenant).orElseThrow(() -> notFound("tenant", tenant));
        TeamConfig team = at.tenant().teams().get(name);
        if (team == null) {
            throw notFound("team", tenant + "/" + name);
        }
        Map<String, TeamConfig> teams = new LinkedHashMap<>(at.tenant().teams());
        teams.put(name, new TeamConfig(name, team.scopeId(), limits, team.keys()));
        return replaceTenant(c, at.org(), withTeams(at.tenant(), teams));
    }

    /**
     * Adds {@code key} to its team.
     *
     * @throws EditRefused when its team is unknown (404), or its id or secret is taken (409)
     */
    public static SluiceConfig createKey(SluiceConfig c, KeyConfig key) {
        requireId(key.id(), "id");
        key(c, key.id()).ifPresent(k -> {
            throw new EditRefused(EditRefused.Why.CONFLICT, "key_exists", "id", "The key " + key.id()
                    + " exists already (tenant " + k.tenant().id() + ").");
        });
        requireUniqueSecret(c, key);
        TenantAt at = tenant(c, key.tenant()).orElseThrow(() -> notFound("tenant", key.tenant()));
        String teamName = key.team().substring(key.tenant().length() + 1);
        TeamConfig team = at.tenant().teams().get(teamName);
        if (team == null) {
            throw notFound("team", key.team());
        }
        return putKey(c, at, team, key);
    }

    /** Replaces the key {@code id} by {@code change} of it (limits, profiles, class, a new secret). */
    public static SluiceConfig updateKey(SluiceConfig c, String id, UnaryOperator<KeyConfig> change) {
        KeyAt at = key(c, id).orElseThrow(() -> notFound("key", id));
        KeyConfig next = change.apply(at.key());
        if (!next.id().equals(id) || !next.team().equals(at.key().team())) {
            throw new IllegalArgumentException("change: moves key " + id + " (expected: the same id and team)");
        }
        if (!java.util.Arrays.equals(next.secretSha256().orElse(null), at.key().secretSha256().orElse(null))) {
            requireUniqueSecret(c, next);
        }
        return putKey(c, new TenantAt(at.org(), at.tenant()), at.team(), next);
    }

    public static SluiceConfig deleteKey(SluiceConfig c, String id) {
        KeyAt at = key(c, id).orElseThrow(() -> notFound("key", id));
        Map<String, KeyConfig> keys = new LinkedHashMap<>(at.team().keys());
        keys.remove(id);
        return replaceTeam(c, new TenantAt(at.org(), at.tenant()), new TeamConfig(at.team().name(), at.team().scopeId(),
                at.team().limits(), keys));
    }

    /**
     * Removes team {@code name} of {@code tenant}; refused with 409 {@code team_has_keys} while it
     * has keys, unless {@code cascade}, which removes them with it.
     */
    public static SluiceConfig deleteTeam(SluiceConfig c, String tenant, String name, boolean cascade) {
        TenantAt at = tenant(c, tenant).orElseThrow(() -> notFound("tenant", tenant));
        TeamConfig team = at.tenant().teams().get(name);
        if (team == null) {
            throw notFound("team", tenant + "/" + name);
        }
        if (!cascade && !team.keys().isEmpty()) {
            throw hasChildren("team_has_keys", "team:" + tenant + "/" + name, team.keys().size() + " key(s) "
                    + team.keys().keySet());
        }
        Map<String, TeamConfig> teams = new LinkedHashMap<>(at.tenant().teams());
        teams.remove(name);
        return replaceTenant(c, at.org(), withTeams(at.tenant(), teams));
    }

    /**
     * Removes tenant {@code id}; refused with 409 {@code tenant_has_teams} while it has teams,
     * unless {@code cascade}, which removes its teams and keys with it.
     */
    public static SluiceConfig deleteTenant(SluiceConfig c, String id, boolean cascade) {
        TenantAt at = tenant(c, id).orElseThrow(() -> notFound("tenant", id));
        if (!cascade && !at.tenant().teams().isEmpty()) {
            throw hasChildren("tenant_has_teams", "tenant:" + id, at.tenant().teams().size() + " team(s) "
                    + at.tenant().teams().keySet());
        }
        Map<String, TenantConfig> tenants = new LinkedHashMap<>(at.org().tenants());
        tenants.remove(id);
        return replaceOrg(c, new OrgConfig(at.org().id(), at.org().limits(), tenants));
    }

    /**
     * Removes organisation {@code id}; refused with 409 {@code org_has_tenants} while it has
     * tenants, unless {@code cascade}, which removes everything below it.
     */
    public static SluiceConfig deleteOrg(SluiceConfig c, String id, boolean cascade) {
        OrgConfig o = org(c, id);
        if (!cascade && !o.tenants().isEmpty()) {
            throw hasChildren("org_has_tenants", "org:" + id, o.tenants().size() + " tenant(s) " + o.tenants().keySet());
        }
        Map<String, OrgConfig> orgs = new LinkedHashMap<>(c.orgs());
        orgs.remove(id);
        return c.withOrgs(orgs);
    }

    private static EditRefused hasChildren(String code, String scope, String children) {
        return new EditRefused(EditRefused.Why.CONFLICT, code, "cascade", scope + " still has " + children
                + "; delete them first, or ask for ?cascade=true to delete them with it.");
    }

    /** The refusal for an unknown {@code what}. */
    public static EditRefused notFound(String what, String id) {
        return new EditRefused(EditRefused.Why.NOT_FOUND, what + "_not_found", "", "There is no " + what + " " + id + ".");
    }

    private static OrgConfig org(SluiceConfig c, String id) {
        OrgConfig o = c.orgs().get(id);
        if (o == null) {
            throw notFound("org", id);
        }
        return o;
    }

    private static void settings(Limits limits, double weight, Limits guaranteed) {
        try {
            new ScopeSettings(limits, weight, guaranteed);
        } catch (ConfigException e) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", e.path(), e.getMessage());
        }
    }

    private static void requireUniqueSecret(SluiceConfig c, KeyConfig key) {
        byte[] hash = key.secretSha256().orElse(null);
        if (hash == null) {
            return;
        }
        boolean taken = c.keys().stream().filter(k -> !k.id().equals(key.id()))
                .anyMatch(k -> java.util.Arrays.equals(k.secretSha256().orElse(null), hash))
                || c.admin().map(a -> a.tokens().values().stream()
                        .anyMatch(t -> java.util.Arrays.equals(t.secretSha256().orElse(null), hash))).orElse(false);
        if (taken) {
            // Never say whose: that would tell the caller another key's secret.
            throw new EditRefused(EditRefused.Why.CONFLICT, "secret_taken", "key_sha256", "That secret (sha256 "
                    + HexFormat.of().formatHex(hash, 0, 4) + "...) is already used by another key or token.");
        }
    }

    private static SluiceConfig putKey(SluiceConfig c, TenantAt at, TeamConfig team, KeyConfig key) {
        Map<String, KeyConfig> keys = new LinkedHashMap<>(team.keys());
        keys.put(key.id(), key);
        return replaceTeam(c, at, new TeamConfig(team.name(), team.scopeId(), team.limits(), keys));
    }

    private static SluiceConfig replaceTeam(SluiceConfig c, TenantAt at, TeamConfig team) {
        Map<String, TeamConfig> teams = new LinkedHashMap<>(at.tenant().teams());
        teams.put(team.name(), team);
        return replaceTenant(c, at.org(), withTeams(at.tenant(), teams));
    }

    private static TenantConfig withTeams(TenantConfig t, Map<String, TeamConfig> teams) {
        return new TenantConfig(t.id(), t.weight(), t.guaranteed(), t.limits(), teams);
    }

    private static SluiceConfig replaceTenant(SluiceConfig c, OrgConfig o, TenantConfig t) {
        Map<String, TenantConfig> tenants = new LinkedHashMap<>(o.tenants());
        tenants.put(t.id(), t);
        return replaceOrg(c, new OrgConfig(o.id(), o.limits(), tenants));
    }

    private static SluiceConfig replaceOrg(SluiceConfig c, OrgConfig o) {
        Map<String, OrgConfig> orgs = new LinkedHashMap<>(c.orgs());
        orgs.put(o.id(), o);
        return c.withOrgs(orgs);
    }
}
