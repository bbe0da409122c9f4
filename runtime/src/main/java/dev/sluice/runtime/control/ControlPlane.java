package dev.sluice.runtime.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.config.ConfigException;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.OrgConfig;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutJson;
import dev.sluice.runtime.rollout.RolloutState;
import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.runtime.rollout.WarmupJson;
import dev.sluice.runtime.rollout.WarmupState;
import dev.sluice.runtime.config.WarmupConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TeamConfig;
import dev.sluice.runtime.config.TenantConfig;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Every change an operator or a partner makes while Sluice runs: the key tree, key secrets,
 * pauses. Each is checked (the tree's rules, then who may do it), applied at once through
 * {@link SluiceRuntime#change} (no restart, reservations in flight untouched), and written to the
 * {@link ControlJournal} as an audit record and a state to replay at the next start. A refused
 * change throws {@link EditRefused} and changes nothing. Changes are serialised.
 *
 * <p>Partners ({@code partner:<org or tenant>}) manage the subtree strictly below their subject;
 * the subject's own limits are their allocation. What a partner hands out per dimension, summed
 * over the children it manages, may not exceed the allocation times the token's oversubscription
 * ({@code admin.tokens.<id>.oversubscription}, 1 unless given).
 */
public final class ControlPlane {

    /** The largest amount of any limit the API accepts: far above any provider's, below overflow. */
    public static final long MAX_LIMIT_AMOUNT = 1_000_000_000_000L;
    /** The longest a rotated key's old secret may stay valid. */
    public static final Duration MAX_OVERLAP = Duration.ofDays(30);

    private final SluiceRuntime runtime;
    private final ControlJournal journal;
    private final JournalReplay journalReplay;
    private final SecureRandom random = new SecureRandom();
    /** The file's configuration (as last loaded or reloaded) that the journal is folded over. */
    private SluiceConfig seed;
    /** The file as read at start, before overrides: what a reload compares its start-only settings with. */
    private SluiceConfig started;
    /** The latest journal change this process has in force. */
    private long seen;
    private final PeerReloads peerReloads = new PeerReloads();

    /**
     * How often a replica looks for changes other replicas wrote to a shared journal: a change
     * reaches every replica within this, plus one database read.
     */
    public static final Duration SYNC_INTERVAL = Duration.ofMillis(500);

    public ControlPlane(SluiceRuntime runtime, ControlJournal journal) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.journal = Objects.requireNonNull(journal, "journal");
        this.journalReplay = new JournalReplay(runtime);
        this.seed = runtime.config();
        this.started = runtime.config();
    }

    /** The configuration in force. */
    public SluiceConfig config() {
        return runtime.config();
    }

    public SluiceRuntime runtime() {
        return runtime;
    }

    public ControlJournal journal() {
        return journal;
    }

    // ---- reading, with the partner's view ----

    /** Whether {@code actor} may see {@code scope}: everything for admin and read; its subtree and subject for a partner. */
    public boolean mayRead(Actor actor, Scope scope) {
        return actor.scope().kind() != AdminScope.Kind.PARTNER || covers(actor, scope, true);
    }

    /** Refuses with 403 unless {@code actor} may read {@code scope}. */
    public void requireRead(Actor actor, Scope scope) {
        if (!mayRead(actor, scope)) {
            throw outside(actor, scope);
        }
    }

    // ---- organisations ----

    public synchronized OrgConfig createOrg(Actor a, String id, Limits limits) {
        requireAdmin(a, "create an organisation");
        requireSane(limits, "limits");
        SluiceConfig after = TreeEdits.createOrg(config(), id, limits);
        OrgConfig o = after.orgs().get(id);
        record(a, "org.create", "org:" + id, null, ControlJson.org(o), orgState(o), after);
        return o;
    }

    public synchronized OrgConfig setOrgLimits(Actor a, String id, Limits limits) {
        requireAdmin(a, "change an organisation's limits");
        requireSane(limits, "limits");
        OrgConfig before = Optional.ofNullable(config().orgs().get(id)).orElseThrow(() -> TreeEdits.notFound("org", id));
        requireCapsAboveSpent(Scope.of(ScopeLevel.ORGANISATION, id), limits);
        SluiceConfig after = TreeEdits.setOrgLimits(config(), id, limits);
        OrgConfig o = after.orgs().get(id);
        record(a, "org.update", "org:" + id, ControlJson.org(before), ControlJson.org(o), orgState(o), after);
        return o;
    }

    // ---- prices ----

    /**
     * Replaces the price table whole: later admissions reserve and settle money caps at it, what is
     * in flight keeps what it reserved. Operators only: a price moves every budget.
     */
    public synchronized dev.sluice.runtime.config.Prices setPrices(Actor a, dev.sluice.runtime.config.Prices prices) {
        requireAdmin(a, "change the prices");
        ObjectNode before = ControlJson.prices(config().prices());
        ObjectNode after = ControlJson.prices(prices);
        // The table under a field of its own: a journal may stamp fields (a relay id) beside it.
        ObjectNode state = ControlJson.JSON.createObjectNode();
        state.set("prices", after);
        record(a, "prices.set", "prices", before, after, state, config().withPrices(prices));
        return prices;
    }

    // ---- tenants ----

    public synchronized TenantConfig createTenant(Actor a, String org, String id, double weight, Limits guaranteed,
            Limits limits) {
        requireSane(limits, "limits");
        requireSane(guaranteed, "guaranteed");
        requireChange(a, Scope.of(ScopeLevel.TENANT, id), Optional.of(org));
        if (isPartner(a)) {
            requireAllocation(a, Scope.of(ScopeLevel.ORGANISATION, org), id, limits);
        }
        SluiceConfig after = TreeEdits.createTenant(config(), org, id, weight, guaranteed, limits);
        TenantConfig t = TreeEdits.tenant(after, id).orElseThrow().tenant();
        record(a, "tenant.create", "tenant:" + id, null, ControlJson.tenant(org, t), tenantState(org, t), after);
        return t;
    }

    public synchronized TenantConfig updateTenant(Actor a, String id, Optional<Double> weight,
            Optional<Limits> guaranteed, Optional<Limits> limits) {
        limits.ifPresent(l -> requireSane(l, "limits"));
        guaranteed.ifPresent(l -> requireSane(l, "guaranteed"));
        TreeEdits.TenantAt at = TreeEdits.tenant(config(), id).orElseThrow(() -> TreeEdits.notFound("tenant", id));
        requireChange(a, Scope.of(ScopeLevel.TENANT, id), Optional.of(at.org().id()));
        if (isPartner(a) && limits.isPresent()) {
            requireAllocation(a, Scope.of(ScopeLevel.ORGANISATION, at.org().id()), id, limits.get());
        }
        limits.ifPresent(l -> requireCapsAboveSpent(Scope.of(ScopeLevel.TENANT, id), l));
        SluiceConfig after = TreeEdits.updateTenant(config(), id, weight, guaranteed, limits);
        TenantConfig t = TreeEdits.tenant(after, id).orElseThrow().tenant();
        record(a, "tenant.update", "tenant:" + id, ControlJson.tenant(at.org().id(), at.tenant()),
                ControlJson.tenant(at.org().id(), t), tenantState(at.org().id(), t), after);
        return t;
    }

    // ---- teams ----

    public synchronized TeamConfig createTeam(Actor a, String tenant, String name, Limits limits) {
        requireSane(limits, "limits");
        Scope scope = Scope.of(ScopeLevel.TEAM, tenant + "/" + name);
        requireChange(a, scope, Optional.empty());
        if (isPartner(a)) {
            requireAllocation(a, Scope.of(ScopeLevel.TENANT, tenant), name, limits);
        }
        SluiceConfig after = TreeEdits.createTeam(config(), tenant, name, limits);
        TeamConfig t = TreeEdits.tenant(after, tenant).orElseThrow().tenant().teams().get(name);
        record(a, "team.create", scope.key(), null, ControlJson.team(tenant, t), teamState(tenant, t), after);
        return t;
    }

    public synchronized TeamConfig setTeamLimits(Actor a, String tenant, String name, Limits limits) {
        requireSane(limits, "limits");
        Scope scope = Scope.of(ScopeLevel.TEAM, tenant + "/" + name);
        TreeEdits.TenantAt at = TreeEdits.tenant(config(), tenant).orElseThrow(() -> TreeEdits.notFound("tenant", tenant));
        TeamConfig before = Optional.ofNullable(at.tenant().teams().get(name))
                .orElseThrow(() -> TreeEdits.notFound("team", tenant + "/" + name));
        requireChange(a, scope, Optional.empty());
        if (isPartner(a)) {
            requireAllocation(a, Scope.of(ScopeLevel.TENANT, tenant), name, limits);
        }
        requireCapsAboveSpent(scope, limits);
        SluiceConfig after = TreeEdits.setTeamLimits(config(), tenant, name, limits);
        TeamConfig t = TreeEdits.tenant(after, tenant).orElseThrow().tenant().teams().get(name);
        record(a, "team.update", scope.key(), ControlJson.team(tenant, before), ControlJson.team(tenant, t),
                teamState(tenant, t), after);
        return t;
    }

    // ---- keys ----

    /**
     * What a new key is to be.
     *
     * @param id its id, unique across the tree
     * @param tenant its tenant
     * @param team its team's name within the tenant
     * @param profiles the profiles it may use; empty for all
     * @param trafficClass its default class; empty for interactive
     * @param maxClass the highest class it may ask for; empty for its class
     * @param limits its own limits
     */
    public record KeySpec(String id, String tenant, String team, List<String> profiles, Optional<String> trafficClass,
            Optional<String> maxClass, Limits limits) {
        public KeySpec {
            profiles = List.copyOf(profiles);
        }
    }

    /**
     * A key and its secret, shown this once and never again.
     *
     * @param oldSecretUntil after a rotation with an overlap, until when the old secret still opens the key
     */
    public record Issued(KeyConfig key, String secret, Optional<Instant> oldSecretUntil) {}

    public synchronized Issued createKey(Actor a, KeySpec spec) {
        requireSane(spec.limits(), "limits");
        TreeEdits.requireId(spec.id(), "id");
        TreeEdits.TenantAt at = TreeEdits.tenant(config(), spec.tenant())
                .orElseThrow(() -> TreeEdits.notFound("tenant", spec.tenant()));
        requireChange(a, Scope.of(ScopeLevel.API_KEY, spec.id()), Optional.of(at.org().id()), spec.tenant());
        if (isPartner(a)) {
            requireWithin(a, spec.limits(), "limits");
        }
        List<String> profiles = spec.profiles().isEmpty() ? List.copyOf(config().profiles().keySet()) : spec.profiles();
        requireProfiles(profiles);
        TrafficClass cls = trafficClass(spec.trafficClass(), TrafficClass.INTERACTIVE, "class");
        TrafficClass max = trafficClass(spec.maxClass(), cls, "max_class");
        if (cls.outranks(max)) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "class", "class: " + cls.wireName()
                    + " (expected: a class no higher than max_class " + max.wireName() + ")");
        }
        String secret = newSecret();
        KeyConfig k = new KeyConfig(spec.id(), at.org().id(), spec.tenant(), spec.tenant() + "/" + spec.team(),
                Optional.of(ConfigLoader.sha256(secret)), "admin api", profiles, cls, max, Optional.empty(),
                spec.limits(), false);
        record(a, "key.create", "key:" + k.id(), null, ControlJson.key(k), ControlJson.keyState(k),
                TreeEdits.createKey(config(), k));
        return new Issued(k, secret, Optional.empty());
    }

    /** Replaces a key's limits, profiles or classes; what is empty stays. */
    public synchronized KeyConfig updateKey(Actor a, String id, Optional<Limits> limits, Optional<List<String>> profiles) {
        limits.ifPresent(l -> requireSane(l, "limits"));
        KeyConfig before = TreeEdits.key(config(), id).orElseThrow(() -> TreeEdits.notFound("key", id)).key();
        requireChange(a, Scope.of(ScopeLevel.API_KEY, id), Optional.of(before.org()), before.tenant());
        if (isPartner(a) && limits.isPresent()) {
            requireWithin(a, limits.get(), "limits");
        }
        limits.ifPresent(l -> requireCapsAboveSpent(Scope.of(ScopeLevel.API_KEY, id), l));
        profiles.ifPresent(this::requireProfiles);
        UnaryOperator<KeyConfig> change = k -> new KeyConfig(k.id(), k.org(), k.tenant(), k.team(), k.secretSha256(),
                k.secretSource(), profiles.orElse(k.profiles()), k.trafficClass(), k.maxClass(), k.deadline(),
                limits.orElse(k.limits()), k.paused());
        SluiceConfig next = TreeEdits.updateKey(config(), id, change);
        KeyConfig after = TreeEdits.key(next, id).orElseThrow().key();
        record(a, "key.update", "key:" + id, ControlJson.key(before), ControlJson.key(after), ControlJson.keyState(after),
                next);
        return after;
    }

    /**
     * Gives a key a new secret, shown this once; the old one keeps opening the key for
     * {@code overlap} (zero: it stops at once).
     */
    public synchronized Issued rotateKey(Actor a, String id, Duration overlap) {
        if (overlap.isNegative() || overlap.compareTo(MAX_OVERLAP) > 0) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "overlap_seconds", "overlap_seconds: "
                    + overlap.toSeconds() + " (expected: 0 to " + MAX_OVERLAP.toSeconds() + ")");
        }
        KeyConfig before = TreeEdits.key(config(), id).orElseThrow(() -> TreeEdits.notFound("key", id)).key();
        requireChange(a, Scope.of(ScopeLevel.API_KEY, id), Optional.of(before.org()), before.tenant());
        String secret = newSecret();
        byte[] hash = ConfigLoader.sha256(secret);
        Instant now = now();
        Optional<RetiredSecrets.Retired> old = before.secretSha256().filter(h -> overlap.isPositive())
                .map(h -> new RetiredSecrets.Retired(id, h, now.plus(overlap)));
        UnaryOperator<KeyConfig> change = k -> new KeyConfig(k.id(), k.org(), k.tenant(), k.team(), Optional.of(hash),
                "admin api", k.profiles(), k.trafficClass(), k.maxClass(), k.deadline(), k.limits(), k.paused());
        SluiceConfig next = TreeEdits.updateKey(config(), id, change);
        KeyConfig after = TreeEdits.key(next, id).orElseThrow().key();
        ObjectNode shown = ControlJson.key(after);
        old.ifPresent(r -> shown.put("old_secret_valid_until", r.until().toString()));
        ObjectNode state = ControlJson.keyState(after);
        old.ifPresent(r -> state.put("retired_sha256", HexFormat.of().formatHex(r.sha256()))
                .put("retired_until", r.until().toString()));
        // The old secret's overlap starts with the new secret, once the change is recorded.
        record(a, "key.rotate", "key:" + id, ControlJson.key(before), shown, state, next, () -> {
            if (old.isPresent()) {
                runtime.retiredSecrets().add(old.get());
            } else {
                runtime.retiredSecrets().remove(id);
            }
        });
        return new Issued(after, secret, old.map(RetiredSecrets.Retired::until));
    }

    public synchronized KeyConfig deleteKey(Actor a, String id) {
        KeyConfig before = TreeEdits.key(config(), id).orElseThrow(() -> TreeEdits.notFound("key", id)).key();
        requireChange(a, Scope.of(ScopeLevel.API_KEY, id), Optional.of(before.org()), before.tenant());
        record(a, "key.delete", "key:" + id, ControlJson.key(before), null,
                ControlJson.JSON.createObjectNode().put("id", id), TreeEdits.deleteKey(config(), id), () -> {
                    runtime.retiredSecrets().remove(id);
                    runtime.pauses().remove(Scope.of(ScopeLevel.API_KEY, id));
                });
        return before;
    }

    // ---- deleting scopes ----

    /** Deletes an organisation (admin only): 409 while it has tenants unless {@code cascade}. */
    public synchronized OrgConfig deleteOrg(Actor a, String id, boolean cascade) {
        requireAdmin(a, "delete an organisation");
        OrgConfig before = Optional.ofNullable(config().orgs().get(id)).orElseThrow(() -> TreeEdits.notFound("org", id));
        SluiceConfig next = TreeEdits.deleteOrg(config(), id, cascade);
        requireNoWarmupLost(next);
        record(a, "org.delete", "org:" + id, ControlJson.org(before), null, deletion(id, cascade), next,
                () -> forgetRemoved(config(), next));
        return before;
    }

    /** Deletes a tenant: 409 while it has teams unless {@code cascade}; a partner only below its subject. */
    public synchronized TenantConfig deleteTenant(Actor a, String id, boolean cascade) {
        TreeEdits.TenantAt at = TreeEdits.tenant(config(), id).orElseThrow(() -> TreeEdits.notFound("tenant", id));
        requireChange(a, Scope.of(ScopeLevel.TENANT, id), Optional.of(at.org().id()));
        SluiceConfig next = TreeEdits.deleteTenant(config(), id, cascade);
        requireNoWarmupLost(next);
        record(a, "tenant.delete", "tenant:" + id, ControlJson.tenant(at.org().id(), at.tenant()), null,
                deletion(id, cascade), next, () -> forgetRemoved(config(), next));
        return at.tenant();
    }

    /** Deletes a team: 409 while it has keys unless {@code cascade}. */
    public synchronized TeamConfig deleteTeam(Actor a, String tenant, String name, boolean cascade) {
        TreeEdits.TenantAt at = TreeEdits.tenant(config(), tenant).orElseThrow(() -> TreeEdits.notFound("tenant", tenant));
        TeamConfig team = Optional.ofNullable(at.tenant().teams().get(name))
                .orElseThrow(() -> TreeEdits.notFound("team", tenant + "/" + name));
        requireChange(a, Scope.of(ScopeLevel.TEAM, tenant + "/" + name), Optional.of(at.org().id()), tenant);
        SluiceConfig next = TreeEdits.deleteTeam(config(), tenant, name, cascade);
        record(a, "team.delete", "team:" + tenant + "/" + name, ControlJson.team(tenant, team), null,
                deletion(name, cascade).put("tenant", tenant), next, () -> forgetRemoved(config(), next));
        return team;
    }

    /**
     * Refuses (409 {@code tenant_warmed_up}) a deletion that would take away a tenant a warm-up
     * paces, even with {@code cascade}: the warm-up is not below the tenant in the tree, and
     * dropping it unasked would lose its progress without a word. Delete the warm-up first.
     */
    private void requireNoWarmupLost(SluiceConfig next) {
        for (WarmupConfig w : config().warmups()) {
            if (TreeEdits.tenant(next, w.tenant()).isEmpty()) {
                throw new EditRefused(EditRefused.Why.CONFLICT, "tenant_warmed_up", "warmup", "Warm-up " + w.id()
                        + " paces tenant " + w.tenant() + "; delete the warm-up first; nothing was changed.");
            }
        }
    }

    private static ObjectNode deletion(String id, boolean cascade) {
        return ControlJson.JSON.createObjectNode().put("id", id).put("cascade", cascade);
    }

    /** Pauses and rotated secrets of keys, teams, tenants and organisations that {@code after} no longer holds. */
    private void forgetRemoved(SluiceConfig before, SluiceConfig after) {
        for (KeyConfig k : before.keys()) {
            if (TreeEdits.key(after, k.id()).isEmpty()) {
                runtime.retiredSecrets().remove(k.id());
                runtime.pauses().remove(Scope.of(ScopeLevel.API_KEY, k.id()));
            }
        }
        for (OrgConfig o : before.orgs().values()) {
            if (!after.orgs().containsKey(o.id())) {
                runtime.pauses().remove(Scope.of(ScopeLevel.ORGANISATION, o.id()));
            }
            for (TenantConfig t : o.tenants().values()) {
                Optional<TreeEdits.TenantAt> still = TreeEdits.tenant(after, t.id());
                if (still.isEmpty()) {
                    runtime.pauses().remove(Scope.of(ScopeLevel.TENANT, t.id()));
                }
                for (String team : t.teams().keySet()) {
                    if (still.map(s -> !s.tenant().teams().containsKey(team)).orElse(true)) {
                        runtime.pauses().remove(Scope.of(ScopeLevel.TEAM, t.id() + "/" + team));
                    }
                }
            }
        }
    }

    // ---- pauses ----

    /**
     * Pauses {@code scope} at once: the next request crossing it is refused with 429
     * {@code paused}, its reason and its expiry. Requests already admitted run to their end.
     */
    public synchronized Pause pause(Actor a, Scope scope, String reason, Optional<Instant> until) {
        requireExists(scope);
        requireChange(a, scope, orgOf(scope), tenantOf(scope));
        if (reason.isBlank() || reason.length() > 500) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "reason", "reason: " + reason.length()
                    + " characters (expected: 1 to 500)");
        }
        Instant now = now();
        until.ifPresent(u -> {
            if (!u.isAfter(now)) {
                throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "until", "until: " + u
                        + " (expected: a time after now, " + now + ")");
            }
        });
        Pause p = new Pause(scope, reason, until, a.tokenId(), now);
        Optional<Pause> before = runtime.pauses().of(scope, runtime.clock().epochMillis());
        record(a, "pause", scope.key(), before.map(ControlJson::pause).orElse(null), ControlJson.pause(p),
                ControlJson.pause(p), config(), () -> runtime.pauses().put(p));
        return p;
    }

    /** Lifts the pause of {@code scope}; 404 when it is not paused. */
    public synchronized Pause resume(Actor a, Scope scope) {
        requireChange(a, scope, orgOf(scope), tenantOf(scope));
        Pause p = runtime.pauses().of(scope, runtime.clock().epochMillis())
                .orElseThrow(() -> new EditRefused(EditRefused.Why.NOT_FOUND, "not_paused", "", scope.key()
                        + " is not paused."));
        record(a, "resume", scope.key(), ControlJson.pause(p), null,
                ControlJson.JSON.createObjectNode().put("scope", scope.key()), config(), () -> runtime.pauses().remove(scope));
        return p;
    }

    /** The pauses in force that {@code a} may see. */
    public List<Pause> pauses(Actor a) {
        List<Pause> out = new ArrayList<>();
        for (Pause p : runtime.pauses().list(runtime.clock().epochMillis())) {
            if (mayRead(a, p.scope())) {
                out.add(p);
            }
        }
        return out;
    }

    // ---- model profiles ----

    /**
     * Changes a profile's routing ({@code deployments}, {@code routing}, {@code fallback}; see
     * {@link ConfigLoader#patchProfile}), checked as the configuration file's profile is. Admins
     * only: a profile is above every tenant.
     *
     * @throws EditRefused 404 for an unknown profile; 422 naming the field for a bad value
     */
    public synchronized dev.sluice.runtime.config.ProfileConfig updateProfile(Actor a, String id, JsonNode patch) {
        requireAdmin(a, "change a model profile");
        dev.sluice.runtime.config.ProfileConfig before = Optional.ofNullable(config().profiles().get(id))
                .orElseThrow(() -> TreeEdits.notFound("profile", id));
        dev.sluice.runtime.config.ProfileConfig after;
        try {
            after = ConfigLoader.patchProfile(before, patch, config().deployments());
        } catch (ConfigException e) {
            throw invalid(e);
        }
        SluiceConfig next = CatalogueEdits.withProfile(config(), after);
        for (var r : next.rollouts()) {
            if (r.profile().equals(id) && !r.from().equals(after.deployment())) {
                throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "deployments[0]", "deployments[0]: \""
                        + after.deployment() + "\" (expected: " + r.from() + ", which rollout " + r.id()
                        + " moves traffic from); nothing was changed");
            }
        }
        try {
            dev.sluice.runtime.rollout.RolloutCompatibility.check(next);
        } catch (ConfigException e) {
            throw invalid(e);
        }
        ObjectNode state = ControlJson.JSON.createObjectNode().put("id", id);
        state.setAll(ControlJson.profileRouting(after));
        if (!Double.isFinite(after.fallback().maxCostRatio())) {
            // Said outright, so that replaying the change over a file that sets a bound removes it again.
            ((ObjectNode) state.get("fallback")).putNull("max_cost_ratio");
        }
        record(a, "profile.update", "profile:" + id, ControlJson.profileRouting(before), ControlJson.profileRouting(after),
                state, next);
        return after;
    }

    /** A profile id the API accepts: what a client can put in {@code model} and a URL path without escaping. */
    private static final java.util.regex.Pattern PROFILE_ID = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    /**
     * Adds a profile, {@code definition} holding the fields of a profile in a configuration file,
     * checked as the file's are. Keys use it once it is in their profiles. Admins only.
     *
     * @throws EditRefused 409 when the id is taken; 422 naming the field for a bad definition or id
     */
    public synchronized dev.sluice.runtime.config.ProfileConfig createProfile(Actor a, String id, JsonNode definition) {
        requireAdmin(a, "create a model profile");
        if (!PROFILE_ID.matcher(id).matches()) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "id", "id: \"" + id + "\" (expected: letters, "
                    + "digits, '.', '_', ':' or '-', at most 128, starting with a letter or digit)");
        }
        if (config().profiles().containsKey(id)) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "profile_exists", "id", "There is a profile " + id + " already.");
        }
        dev.sluice.runtime.config.ProfileConfig p;
        try {
            p = ConfigLoader.profile(id, definition, config().deployments());
        } catch (ConfigException e) {
            throw invalid(e);
        }
        SluiceConfig next = CatalogueEdits.withProfile(config(), p);
        ObjectNode state = CatalogueEdits.only(definition, ConfigLoader.PROFILE).put("id", id);
        record(a, "profile.create", "profile:" + id, null, ControlJson.profile(p, next), state, next);
        return p;
    }

    /**
     * Removes a profile no key and no rollout uses. Admins only.
     *
     * @throws EditRefused 404 for an unknown profile; 409 {@code profile_in_use} naming its users
     */
    public synchronized dev.sluice.runtime.config.ProfileConfig deleteProfile(Actor a, String id) {
        requireAdmin(a, "delete a model profile");
        dev.sluice.runtime.config.ProfileConfig p = Optional.ofNullable(config().profiles().get(id))
                .orElseThrow(() -> TreeEdits.notFound("profile", id));
        List<String> users = CatalogueEdits.users(config(), id);
        if (!users.isEmpty()) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "profile_in_use", "", "Profile " + id + " is used by "
                    + String.join(", ", users) + "; take it out of them first; nothing was changed.");
        }
        ObjectNode state = ControlJson.JSON.createObjectNode().put("id", id);
        record(a, "profile.delete", "profile:" + id, ControlJson.profile(p, config()), null, state,
                CatalogueEdits.withoutProfile(config(), id));
        return p;
    }

    // ---- rollouts ----

    /**
     * Adds a rollout, {@code definition} holding the fields of a rollout in a configuration file,
     * checked as the file's are (a known profile, a target its fallback policy allows, steps
     * increasing, thresholds of the right type). It is pending until started, unless it says
     * {@code start: immediately}. Admins only: a rollout moves a profile every tenant shares.
     *
     * @throws EditRefused 409 when the id is taken or another rollout moves the profile; 422 naming
     *     the field for a bad definition or id
     */
    public synchronized RolloutConfig createRollout(Actor a, String id, JsonNode definition) {
        requireAdmin(a, "create a rollout");
        if (!PROFILE_ID.matcher(id).matches()) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "id", "id: \"" + id + "\" (expected: letters, "
                    + "digits, '.', '_', ':' or '-', at most 128, starting with a letter or digit)");
        }
        if (config().rollouts().stream().anyMatch(r -> r.id().equals(id))) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "rollout_exists", "id", "There is a rollout " + id + " already.");
        }
        RolloutConfig r;
        try {
            r = ConfigLoader.rollout(id, definition, config());
        } catch (ConfigException e) {
            throw invalid(e);
        }
        Optional<RolloutConfig> other = config().rollouts().stream().filter(o -> o.profile().equals(r.profile())).findFirst();
        if (other.isPresent()) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "profile_in_rollout", "profile", "Rollout " + other.get().id()
                    + " moves profile " + r.profile() + " already; delete it first; nothing was changed.");
        }
        ObjectNode state = CatalogueEdits.only(definition, ConfigLoader.ROLLOUT).put("id", id);
        record(a, "rollout.create", "rollout:" + id, null, state, state, CatalogueEdits.withRollout(config(), r));
        if (r.startsAtOnce()) {
            runtime.rollouts().start(id, a.tokenId());
        }
        return r;
    }

    /**
     * Removes a rollout, the file's or the API's, whatever its status: its profile's requests are
     * routed by the profile again (to the source first) from the next one. Admins only.
     *
     * @throws EditRefused 404 for an unknown rollout
     */
    public synchronized RolloutConfig deleteRollout(Actor a, String id) {
        requireAdmin(a, "delete a rollout");
        RolloutConfig r = config().rollouts().stream().filter(o -> o.id().equals(id)).findFirst()
                .orElseThrow(() -> new EditRefused(EditRefused.Why.NOT_FOUND, "unknown_rollout", "rollout",
                        "No rollout \"" + id + "\" is in force."));
        ObjectNode state = ControlJson.JSON.createObjectNode().put("id", id);
        record(a, "rollout.delete", "rollout:" + id, ControlJson.JSON.createObjectNode().put("id", id)
                .put("profile", r.profile()).put("to", r.to()), null, state, CatalogueEdits.withoutRollout(config(), id),
                () -> runtime.rollouts().forget(id));
        return r;
    }

    /**
     * Keeps every decision the rollouts make from now on in the journal ({@code rollout.state}: the
     * decision with its figures, and the state it left), written on {@code writer} (the journal may
     * wait on a database; decisions are made on the runtime's tick). Replayed at start and read by
     * the other replicas' sync, so a rollout's stage, history and decisions survive a restart and
     * are shared by every replica that shares the journal (its database, or the change relay).
     * {@code writer} should run the writes in order.
     */
    public void journalRolloutDecisions(java.util.concurrent.Executor writer) {
        runtime.rollouts().onStateChange((d, s) -> writer.execute(() -> recordRolloutState(d, s)));
    }

    private synchronized void recordRolloutState(RolloutDecision d, RolloutState s) {
        ObjectNode state = RolloutJson.journalState(d, s);
        AuditRecord stored = journal.append(new AuditRecord(0, Instant.ofEpochMilli(d.atEpochMillis()), d.by(),
                "rollout.state", "rollout:" + d.rollout(), ControlJson.text(null),
                ControlJson.text(RolloutJson.decision(d))), state.toString());
        if (stored.seq() == seen + 1) {
            seen = stored.seq();
        }
    }

    // ---- warm-ups ----

    /**
     * Adds a warm-up, {@code definition} holding the fields of a warm-up in a configuration file,
     * checked as the file's are (a configured tenant with a limit in each dimension it grows, a
     * start, a duration of 1m to 24h, rates of at least 1, a threshold in [0, 1]). It waits for its
     * start (its time of day, or the tenant's first request after a quiet spell). Admins only: it
     * paces a tenant's buckets.
     *
     * @throws EditRefused 409 when the id is taken or another warm-up names the tenant; 422 naming
     *     the field for a bad definition or id
     */
    public synchronized WarmupConfig createWarmup(Actor a, String id, JsonNode definition) {
        requireAdmin(a, "create a warm-up");
        if (!PROFILE_ID.matcher(id).matches()) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "id", "id: \"" + id + "\" (expected: letters, "
                    + "digits, '.', '_', ':' or '-', at most 128, starting with a letter or digit)");
        }
        if (config().warmups().stream().anyMatch(w -> w.id().equals(id))) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "warmup_exists", "id", "There is a warm-up " + id + " already.");
        }
        WarmupConfig w;
        try {
            w = ConfigLoader.warmup(id, definition, config());
        } catch (ConfigException e) {
            throw invalid(e);
        }
        Optional<WarmupConfig> other = config().warmups().stream().filter(o -> o.tenant().equals(w.tenant())).findFirst();
        if (other.isPresent()) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "tenant_warmed_up", "tenant", "Warm-up " + other.get().id()
                    + " warms up tenant " + w.tenant() + " already; delete it first; nothing was changed.");
        }
        ObjectNode state = CatalogueEdits.only(definition, ConfigLoader.WARMUP).put("id", id);
        record(a, "warmup.create", "warmup:" + id, null, state, state, CatalogueEdits.withWarmup(config(), w));
        return w;
    }

    /**
     * Removes a warm-up, the file's or the API's, whatever its status: its tenant's buckets refill
     * at its limits again at once. Admins only.
     *
     * @throws EditRefused 404 for an unknown warm-up
     */
    public synchronized WarmupConfig deleteWarmup(Actor a, String id) {
        requireAdmin(a, "delete a warm-up");
        WarmupConfig w = config().warmups().stream().filter(o -> o.id().equals(id)).findFirst()
                .orElseThrow(() -> new EditRefused(EditRefused.Why.NOT_FOUND, "unknown_warmup", "warmup",
                        "No warm-up \"" + id + "\" is configured."));
        ObjectNode state = ControlJson.JSON.createObjectNode().put("id", id);
        record(a, "warmup.delete", "warmup:" + id, ControlJson.JSON.createObjectNode().put("id", id)
                .put("tenant", w.tenant()), null, state, CatalogueEdits.withoutWarmup(config(), id),
                () -> runtime.warmups().forget(id));
        return w;
    }

    /**
     * Keeps every decision the warm-ups make from now on in the journal ({@code warmup.state}: the
     * decision and the state it left), written on {@code writer}, as {@link #journalRolloutDecisions}
     * does for rollouts: a restart resumes a warm-up at the same rate, and the replicas sharing the
     * journal pace the tenant alike. {@code writer} should run the writes in order.
     */
    public void journalWarmupDecisions(java.util.concurrent.Executor writer) {
        runtime.warmups().onStateChange((d, s) -> writer.execute(() -> recordWarmupState(d, s)));
    }

    private synchronized void recordWarmupState(WarmupDecision d, WarmupState s) {
        ObjectNode state = WarmupJson.journalState(d, s);
        AuditRecord stored = journal.append(new AuditRecord(0, Instant.ofEpochMilli(d.atEpochMillis()), d.by(),
                "warmup.state", "warmup:" + d.warmup(), ControlJson.text(null),
                ControlJson.text(WarmupJson.decision(d))), state.toString());
        if (stored.seq() == seen + 1) {
            seen = stored.seq();
        }
    }

    // ---- replay and reload ----

    /**
     * Applies the journal's changes over the configuration file, oldest first, at start: what was
     * changed through the API wins over the file for the objects it touched (an organisation, a
     * tenant, a team, a key, a pause); the file decides everything else. A change that no longer
     * applies (its organisation was removed from the file) is skipped. One change of the runtime.
     */
    public synchronized void replay() {
        long latest = journal.latestSeq();
        List<ControlJournal.Replayed> changes = journal.replay();
        peerReloads.started(changes);
        seed = config();
        runtime.change(c -> journalReplay.fold(c, changes));
        seen = latest;
    }

    /**
     * Puts in force the changes other replicas wrote to a shared journal since this one last
     * looked: the file's configuration with the whole journal folded over it, one runtime change.
     *
     * @return whether anything new was found
     */
    public synchronized boolean sync() {
        long latest = journal.latestSeq();
        if (latest <= seen) {
            return false;
        }
        List<ControlJournal.Replayed> changes = journal.replay();
        if (peerReloads.newFrom(changes) && followReload()) {
            seen = latest;
            return true;
        }
        SluiceConfig base = seed;
        runtime.change(c -> journalReplay.fold(base, changes));
        seen = latest;
        return true;
    }

    /**
     * Another replica reloaded its file through the admin API: this one reloads its own, by the
     * same rules, without writing a reload of its own to the journal (the fleet would echo it).
     * False, with the reason kept ({@link #peerReloadRefused}), when its file is missing, does not
     * validate or is refused: it then keeps its configuration and takes the journal's other changes.
     */
    private boolean followReload() {
        java.nio.file.Path file = java.nio.file.Path.of(config().sourceName());
        if (!java.nio.file.Files.isRegularFile(file)) {
            return false;
        }
        try {
            reload(Actor.CONFIG, ConfigLoader.load(file), false);
            peerReloads.refused("");
            return true;
        } catch (ConfigException e) {
            peerReloads.refused(file + ": " + e.getMessage());
        } catch (EditRefused e) {
            peerReloads.refused(e.getMessage());
        }
        return false;
    }

    /**
     * Why this replica could not follow the last reload another replica made through the admin
     * API (its own file did not validate, or a reload rule refused it); empty when it followed it.
     */
    public String peerReloadRefused() {
        return peerReloads.lastRefusal();
    }

    /**
     * What a reload put in force, and what it could not.
     *
     * @param config the configuration now in force
     * @param needsRestart the field paths of settings the file changes that are read only at start
     *     ({@code server.port}, {@code deployments.<id>.base_url} ...): kept as running until a restart
     */
    public record Reload(SluiceConfig config, List<String> needsRestart) {
        public Reload {
            Objects.requireNonNull(config, "config");
            needsRestart = List.copyOf(needsRestart);
        }
    }

    /**
     * The file as this process read it at start, before any command-line override (a
     * {@code --port}): a reload names as needing a restart what the file sets otherwise now. By
     * default the configuration the runtime started with.
     */
    public synchronized void startedFrom(SluiceConfig asRead) {
        this.started = Objects.requireNonNull(asRead, "asRead");
    }

    /**
     * Reads the configuration file again and puts in force, all at once or (on any error) not at
     * all: its key tree, its model profiles whole (added, removed, their deployments, routing,
     * fallback policy and limits), its deployments whole (added, removed, replaced with another
     * connection: {@code SluiceRuntime.change}), the limits of its shared provider scopes, its
     * prices and its admin tokens; the journal is replayed over it, so changes made through the API
     * still win for what they touched. The settings read only at start (listeners, store, ledger,
     * class policies ...) are kept as running and named in {@link Reload#needsRestart}.
     *
     * @throws EditRefused 422 naming the file's path and field when it does not validate; 422
     *     {@code deployment_in_use} when a profile the API shaped or a rollout names a deployment it
     *     removes; 422 {@code needs_restart} when it adds, removes or moves a provider scope (of a
     *     deployment it keeps), opens or closes the admin listener, or changes a profile a running
     *     rollout depends on; 409 when the configuration was not read from a file
     */
    public synchronized Reload reloadFile(Actor a) {
        requireAdmin(a, "reload the configuration");
        java.nio.file.Path file = java.nio.file.Path.of(config().sourceName());
        if (!java.nio.file.Files.isRegularFile(file)) {
            throw new EditRefused(EditRefused.Why.CONFLICT, "not_from_a_file", "", "The configuration was not read "
                    + "from a file (" + config().sourceName() + "): there is nothing to reload.");
        }
        SluiceConfig fresh;
        try {
            fresh = ConfigLoader.load(file);
        } catch (ConfigException e) {
            throw new EditRefused(EditRefused.Why.INVALID, "invalid_config", e.path(), file + ": " + e.getMessage()
                    + "; nothing was changed");
        }
        return reload(a, fresh);
    }

    /** {@link #reloadFile} with the file already read and validated. */
    public synchronized Reload reload(Actor a, SluiceConfig fresh) {
        return reload(a, fresh, true);
    }

    /** {@link #reload(Actor, SluiceConfig)}, written to the journal (so the other replicas follow it) when {@code record}. */
    private Reload reload(Actor a, SluiceConfig fresh, boolean record) {
        requireAdmin(a, "reload the configuration");
        SluiceConfig running = config();
        // Deployments may come and go (SluiceRuntime.change); a running one keeps its provider scopes.
        boolean scopesMoved = !fresh.providerScopes().keySet().equals(running.providerScopes().keySet())
                || running.deployments().values().stream().anyMatch(d -> fresh.deployments().containsKey(d.id())
                        && !fresh.deployments().get(d.id()).providerScopes().equals(d.providerScopes()));
        if (scopesMoved) {
            throw new EditRefused(EditRefused.Why.INVALID, "needs_restart", "provider_scopes", "provider scopes "
                    + fresh.providerScopes().keySet() + " (expected: those running, " + running.providerScopes().keySet()
                    + ", with the same deployments under each but those added or removed; adding, removing or moving "
                    + "one needs a restart); nothing was changed");
        }
        if (fresh.admin().isPresent() != running.admin().isPresent()) {
            throw new EditRefused(EditRefused.Why.INVALID, "needs_restart", "admin", "admin: "
                    + (fresh.admin().isPresent() ? "added" : "removed") + " (expected: as running; opening or closing the "
                    + "admin listener needs a restart); nothing was changed");
        }
        // The file's deployments and profiles as it writes them now; the journal then adds, changes and removes what
        // the API did.
        SluiceConfig base = running.withOrgs(fresh.orgs()).withDeployments(fresh.deployments()).withProfiles(fresh.profiles())
                .withProviderScopes(fresh.providerScopes()).withPrices(fresh.prices());
        if (running.admin().isPresent()) {
            // The listener stays as it is; its tokens are the file's from now on.
            base = base.withAdmin(running.admin().get().withTokens(fresh.admin().get().tokens()));
        }
        List<ControlJournal.Replayed> changes = journal.replay();
        SluiceConfig next = journalReplay.fold(base, changes);
        ReloadedDeployments.check(running, fresh, changes, next);
        requireRolloutsHold(next);
        warmTokenizers(running, next);
        List<String> needsRestart = StartOnlySettings.changed(started, fresh);
        SluiceConfig after = runtime.change(c -> next);
        seed = base;
        // Pauses written in the file follow the file.
        Instant now = now();
        for (Pause p : runtime.pauses().list(runtime.clock().epochMillis())) {
            if (p.by().equals(Actor.CONFIG.tokenId())) {
                runtime.pauses().remove(p.scope());
            }
        }
        for (KeyConfig k : after.keys()) {
            if (k.paused()) {
                runtime.pauses().put(new Pause(Scope.of(ScopeLevel.API_KEY, k.id()), "paused in " + fresh.sourceName(),
                        Optional.empty(), Actor.CONFIG.tokenId(), now));
            }
        }
        ObjectNode summary = ControlJson.JSON.createObjectNode().put("file", fresh.sourceName())
                .put("orgs", after.orgs().size()).put("tenants", after.tenants().size()).put("keys", after.keys().size())
                .put("profiles", after.profiles().size());
        needsRestart.forEach(summary.putArray("needs_restart")::add);
        ObjectNode was = ControlJson.JSON.createObjectNode().put("orgs", running.orgs().size())
                .put("tenants", running.tenants().size()).put("keys", running.keys().size())
                .put("profiles", running.profiles().size());
        if (record) {
            record(a, PeerReloads.ACTION, "config", was, summary, summary, after);
            peerReloads.reloadedHere();
        }
        return new Reload(after, needsRestart);
    }

    /**
     * The rollouts run as they started (they are read at start), so the profiles a reload brings
     * must still carry them: each rollout's profile present, its first deployment the one the
     * rollout moves traffic from, its fallback policy allowing the target.
     */
    private static void requireRolloutsHold(SluiceConfig next) {
        for (var r : next.rollouts()) {
            dev.sluice.runtime.config.ProfileConfig p = next.profiles().get(r.profile());
            if (p == null || !p.deployment().equals(r.from())) {
                throw new EditRefused(EditRefused.Why.INVALID, "needs_restart", "profiles." + r.profile(), "profiles."
                        + r.profile() + ": " + (p == null ? "removed" : "first deployment \"" + p.deployment() + "\"")
                        + " (expected: a first deployment " + r.from() + ", which running rollout " + r.id()
                        + " moves traffic from; changing a rollout needs a restart); nothing was changed");
            }
        }
        try {
            dev.sluice.runtime.rollout.RolloutCompatibility.check(next);
        } catch (ConfigException e) {
            throw new EditRefused(EditRefused.Why.INVALID, "needs_restart", e.path(), e.getMessage()
                    + " (a running rollout needs it; changing a rollout needs a restart); nothing was changed");
        }
    }

    /** Loads the vocabulary of a tokenizer no profile used before here, off the event loops, before any request needs it. */
    private void warmTokenizers(SluiceConfig running, SluiceConfig next) {
        java.util.Set<dev.sluice.estimate.Tokenizer> known = new java.util.HashSet<>();
        running.profiles().values().forEach(p -> known.add(p.tokenizer()));
        for (dev.sluice.runtime.config.ProfileConfig p : next.profiles().values()) {
            if (known.add(p.tokenizer())) {
                runtime.estimator().countTokens(p.tokenizer(), "warm up");
            }
        }
    }

    /** Parses {@code tenant:acme}, {@code team:acme/x}, {@code key:k}, {@code org:o}, {@code profile:p}, {@code deployment:d}. */
    public static Scope scope(String key) {
        int colon = key.indexOf(':');
        if (colon > 0 && colon < key.length() - 1) {
            String prefix = key.substring(0, colon);
            for (ScopeLevel l : ScopeLevel.values()) {
                if (l.prefix().equals(prefix)) {
                    return Scope.of(l, key.substring(colon + 1));
                }
            }
        }
        throw new EditRefused(EditRefused.Why.INVALID, "invalid_scope", "scope", "scope: \"" + key
                + "\" (expected: org:<id>, tenant:<id>, team:<tenant>/<team>, key:<id>, profile:<id>, provider_scope:<id> or deployment:<id>)");
    }

    // ---- rules ----

    private static boolean isPartner(Actor a) {
        return a.scope().kind() == AdminScope.Kind.PARTNER;
    }

    private static void requireAdmin(Actor a, String what) {
        if (a.scope().kind() != AdminScope.Kind.ADMIN) {
            throw new EditRefused(EditRefused.Why.FORBIDDEN, "admin_only", "", "Only an admin token may " + what
                    + "; the token " + a.tokenId() + " has scope " + a.scope().wireName() + ".");
        }
    }

    private void requireChange(Actor a, Scope scope, Optional<String> org, String... tenant) {
        switch (a.scope().kind()) {
            case ADMIN -> { }
            case READ -> throw new EditRefused(EditRefused.Why.FORBIDDEN, "read_only", "", "The token " + a.tokenId()
                    + " has scope read: it may change nothing.");
            case PARTNER -> {
                if (!covers(a, scope, false, org, tenant.length > 0 ? Optional.of(tenant[0]) : Optional.empty())) {
                    throw outside(a, scope);
                }
            }
        }
    }

    private boolean covers(Actor a, Scope scope, boolean subjectToo) {
        return covers(a, scope, subjectToo, orgOf(scope), tenantOf(scope).length > 0
                ? Optional.of(tenantOf(scope)[0]) : Optional.empty());
    }

    /**
     * Whether {@code scope} lies below the partner's subject (or is the subject, when
     * {@code subjectToo}): a tenant of its organisation; a team or key of its tenant or of one of
     * its organisation's tenants. Profiles and deployments are shared: never a partner's.
     */
    private boolean covers(Actor a, Scope scope, boolean subjectToo, Optional<String> org, Optional<String> tenant) {
        String subject = a.scope().subject().orElseThrow();
        boolean subjectIsOrg = config().orgs().containsKey(subject);
        return switch (scope.level()) {
            case ORGANISATION -> subjectToo && subjectIsOrg && scope.id().equals(subject);
            case TENANT -> (subjectIsOrg && org.map(subject::equals).orElse(false))
                    || (subjectToo && !subjectIsOrg && scope.id().equals(subject));
            case TEAM, API_KEY -> tenant.map(t -> t.equals(subject)
                    || (subjectIsOrg && TreeEdits.tenant(config(), t).map(at -> at.org().id().equals(subject)).orElse(
                            org.map(subject::equals).orElse(false)))).orElse(false);
            case MODEL_PROFILE, PROVIDER_SCOPE, PROVIDER_DEPLOYMENT -> false;
        };
    }

    private EditRefused outside(Actor a, Scope scope) {
        return new EditRefused(EditRefused.Why.FORBIDDEN, "outside_partner_subtree", "", "The token " + a.tokenId()
                + " (scope " + a.scope().wireName() + ") manages only what lies below " + a.scope().subject().orElse("")
                + "; " + scope.key() + " does not.");
    }

    /**
     * A partner's children may not get more, per dimension and summed over the siblings it manages,
     * than its allocation (its subject's own limits) times its token's oversubscription; no one
     * child more than the allocation itself.
     */
    private void requireAllocation(Actor a, Scope parent, String child, Limits limits) {
        requireWithin(a, limits, "limits");
        Limits allocation = allocation(a);
        for (Limit l : limits.all()) {
            Optional<Limit> cap = allocation.get(l.dimension());
            if (cap.isEmpty()) {
                continue;
            }
            long sum = l.amount();
            for (Limits sibling : siblings(parent, child)) {
                sum += sibling.get(l.dimension()).map(Limit::amount).orElse(0L);
            }
            long allowed = (long) Math.floor(cap.get().amount() * a.oversubscription());
            if (sum > allowed) {
                throw new EditRefused(EditRefused.Why.INVALID, "exceeds_partner_allocation", "limits."
                        + l.dimension().limiterName(), "limits." + l.dimension().limiterName() + ": " + l.amount()
                        + " would hand out " + sum + " in all below " + parent.key() + " (expected: at most the allocation "
                        + allowed + " of " + a.scope().wireName() + ")");
            }
        }
    }

    /** Each limit at most the partner's allocation of its dimension. */
    private void requireWithin(Actor a, Limits limits, String field) {
        Limits allocation = allocation(a);
        for (Limit l : limits.all()) {
            allocation.get(l.dimension()).ifPresent(cap -> {
                if (l.amount() > cap.amount()) {
                    throw new EditRefused(EditRefused.Why.INVALID, "exceeds_partner_allocation", field + "."
                            + l.dimension().limiterName(), field + "." + l.dimension().limiterName() + ": " + l.amount()
                            + " (expected: at most the allocation " + cap.amount() + " of " + a.scope().wireName() + ")");
                }
            });
        }
    }

    private Limits allocation(Actor a) {
        String subject = a.scope().subject().orElseThrow();
        OrgConfig o = config().orgs().get(subject);
        if (o != null) {
            return o.limits();
        }
        return TreeEdits.tenant(config(), subject).map(t -> t.tenant().limits()).orElse(Limits.none());
    }

    private List<Limits> siblings(Scope parent, String except) {
        List<Limits> out = new ArrayList<>();
        if (parent.level() == ScopeLevel.ORGANISATION) {
            OrgConfig o = config().orgs().get(parent.id());
            if (o != null) {
                o.tenants().values().stream().filter(t -> !t.id().equals(except)).forEach(t -> out.add(t.limits()));
            }
        } else {
            TreeEdits.tenant(config(), parent.id()).ifPresent(at -> at.tenant().teams().values().stream()
                    .filter(t -> !t.name().equals(except)).forEach(t -> out.add(t.limits())));
        }
        return out;
    }

    /**
     * A daily or monthly cap may not be set below what its scope has already spent today or this
     * month: the change would say "allowed" of what the bucket already refuses, and the next reset
     * would not come until midnight or the month's end anyway.
     */
    private void requireCapsAboveSpent(Scope scope, Limits limits) {
        for (Limit l : limits.all()) {
            if (!l.dimension().kind().calendar()) {
                continue;
            }
            Optional<dev.sluice.store.BucketState.DimensionState> now = runtime.governor().bucket(scope)
                    .flatMap(b -> b.of(l.dimension()));
            if (now.isEmpty()) {
                continue;
            }
            long spent = (long) Math.ceil(now.get().capacity() - now.get().available());
            if (l.amount() < spent) {
                boolean monthly = l.dimension().kind() == Dimension.Kind.MONTHLY;
                // Each calendar its own code: a client telling the two apart should not parse the message.
                String field = "limits." + l.dimension().limiterName();
                throw new EditRefused(EditRefused.Why.INVALID, monthly ? "monthly_cap_below_spent" : "daily_cap_below_spent",
                        field, field + ": " + amountAsWritten(l.dimension(), l.amount()) + " (expected: at least "
                                + amountAsWritten(l.dimension(), spent) + ", what " + scope.key() + " has spent "
                                + (monthly ? "this month" : "today") + ")");
            }
        }
    }

    /** An amount as the API takes it: a cost cap in dollars ({@code 0.25}), any other as counted. */
    private static String amountAsWritten(Dimension d, long amount) {
        return d.money() ? java.math.BigDecimal.valueOf(amount, 6).stripTrailingZeros().toPlainString() + " dollars"
                : Long.toString(amount);
    }

    private void requireProfiles(List<String> profiles) {
        for (int i = 0; i < profiles.size(); i++) {
            if (!config().profiles().containsKey(profiles.get(i))) {
                throw new EditRefused(EditRefused.Why.INVALID, "unknown_profile", "profiles[" + i + "]", "profiles[" + i
                        + "]: \"" + profiles.get(i) + "\" (expected: one of the profiles " + config().profiles().keySet() + ")");
            }
        }
    }

    /** Limits above {@link #MAX_LIMIT_AMOUNT} are refused: such a number is a typo, not a limit. */
    private static void requireSane(Limits limits, String field) {
        for (Limit l : limits.all()) {
            if (l.amount() > MAX_LIMIT_AMOUNT || l.burst().orElse(0) > MAX_LIMIT_AMOUNT) {
                throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", field + "." + l.dimension().limiterName(),
                        field + "." + l.dimension().limiterName() + ": " + l.amount() + " (expected: 1 to "
                                + MAX_LIMIT_AMOUNT + ")");
            }
        }
    }

    private void requireExists(Scope scope) {
        SluiceConfig c = config();
        boolean exists = switch (scope.level()) {
            case ORGANISATION -> c.orgs().containsKey(scope.id());
            case TENANT -> TreeEdits.tenant(c, scope.id()).isPresent();
            case TEAM -> {
                int slash = scope.id().indexOf('/');
                yield slash > 0 && TreeEdits.tenant(c, scope.id().substring(0, slash))
                        .map(t -> t.tenant().teams().containsKey(scope.id().substring(slash + 1))).orElse(false);
            }
            case API_KEY -> TreeEdits.key(c, scope.id()).isPresent();
            case MODEL_PROFILE -> c.profiles().containsKey(scope.id());
            case PROVIDER_SCOPE -> c.providerScopes().containsKey(scope.id());
            case PROVIDER_DEPLOYMENT -> c.deployments().containsKey(scope.id());
        };
        if (!exists) {
            throw TreeEdits.notFound(scope.level().prefix(), scope.id());
        }
    }

    private Optional<String> orgOf(Scope scope) {
        SluiceConfig c = config();
        return switch (scope.level()) {
            case ORGANISATION -> Optional.of(scope.id());
            case TENANT -> TreeEdits.tenant(c, scope.id()).map(t -> t.org().id());
            case TEAM -> TreeEdits.tenant(c, scope.id().split("/", 2)[0]).map(t -> t.org().id());
            case API_KEY -> TreeEdits.key(c, scope.id()).map(k -> k.org().id());
            case MODEL_PROFILE, PROVIDER_SCOPE, PROVIDER_DEPLOYMENT -> Optional.empty();
        };
    }

    private String[] tenantOf(Scope scope) {
        return switch (scope.level()) {
            case TEAM -> new String[] {scope.id().split("/", 2)[0]};
            case API_KEY -> TreeEdits.key(config(), scope.id()).map(k -> new String[] {k.tenant().id()})
                    .orElse(new String[0]);
            default -> new String[0];
        };
    }

    private static TrafficClass trafficClass(Optional<String> name, TrafficClass fallback, String field) {
        if (name.isEmpty()) {
            return fallback;
        }
        return TrafficClass.byWireName(name.get()).orElseThrow(() -> new EditRefused(EditRefused.Why.INVALID,
                "invalid_value", field, field + ": \"" + name.get() + "\" (expected: one of "
                        + java.util.Arrays.stream(TrafficClass.values()).map(TrafficClass::wireName).toList() + ")"));
    }

    private String newSecret() {
        byte[] b = new byte[24];
        random.nextBytes(b);
        return "sk-sluice-" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private Instant now() {
        return Instant.ofEpochMilli(runtime.clock().epochMillis());
    }

    private void record(Actor a, String action, String target, JsonNode before, JsonNode after, JsonNode state,
            SluiceConfig next) {
        record(a, action, target, before, after, state, next, () -> { });
    }

    /**
     * Writes the change to the journal, then runs {@code then} (a pause, an old secret's overlap)
     * and puts {@code next} in force: a change that cannot be recorded is not made.
     */
    private void record(Actor a, String action, String target, JsonNode before, JsonNode after, JsonNode state,
            SluiceConfig next, Runnable then) {
        AuditRecord stored = journal.append(new AuditRecord(0, now(), a.tokenId(), action, target,
                ControlJson.text(before), ControlJson.text(after)), state.toString());
        // Before the change: the key ring made again on it must already hold a rotated key's old secret.
        then.run();
        runtime.change(c -> next);
        // Only when nothing came between: another replica's change must still be found by sync.
        if (stored.seq() == seen + 1) {
            seen = stored.seq();
        }
    }

    private static ObjectNode orgState(OrgConfig o) {
        return ControlJson.org(o);
    }

    private static ObjectNode tenantState(String org, TenantConfig t) {
        return ControlJson.tenant(org, t);
    }

    private static ObjectNode teamState(String tenant, TeamConfig t) {
        return ControlJson.team(tenant, t);
    }

    /** Wraps a {@link ConfigException} from reading a body's limits as a 422 naming the path. */
    public static EditRefused invalid(ConfigException e) {
        return new EditRefused(EditRefused.Why.INVALID, "invalid_value", e.path(), e.getMessage());
    }

    /** Dimensions by name, for messages. */
    static List<String> dimensionNames() {
        return java.util.Arrays.stream(Dimension.values()).map(Dimension::limiterName).toList();
    }
}
