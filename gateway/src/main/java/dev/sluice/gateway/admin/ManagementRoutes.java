package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.config.ConfigException;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.ledger.query.Usage;
import dev.sluice.ledger.query.UsageRow;
import dev.sluice.ledger.query.Window;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.AdminScope;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.OrgConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.config.TeamConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.runtime.control.Actor;
import dev.sluice.runtime.control.AuditRecord;
import dev.sluice.runtime.control.ControlJson;
import dev.sluice.runtime.control.ControlPlane;
import dev.sluice.runtime.control.EditRefused;
import dev.sluice.runtime.control.Pause;
import dev.sluice.runtime.control.TreeEdits;
import dev.sluice.runtime.yaml.YamlNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * The admin and partner API over the key tree: organisations, tenants, teams, keys (issue,
 * rotation), pauses, usage and the audit trail. Each handler reads the wire (JSON bodies through
 * the configuration reader, so errors name the field path as {@code sluice check-config} does) and
 * asks the runtime's {@link ControlPlane}, which holds every rule; the answer is JSON. Work that
 * may wait on the database runs on a worker, never on the admin event loop.
 */
final class ManagementRoutes {

    private static final Set<String> ORG = Set.of("id", "limits");
    private static final Set<String> ORG_PATCH = Set.of("limits");
    private static final Set<String> TENANT = Set.of("id", "org", "weight", "guaranteed", "limits");
    private static final Set<String> TENANT_PATCH = Set.of("weight", "guaranteed", "limits");
    private static final Set<String> TEAM = Set.of("name", "limits");
    private static final Set<String> TEAM_PATCH = Set.of("limits");
    private static final Set<String> KEY = Set.of("id", "tenant", "team", "profiles", "class", "max_class", "limits");
    private static final Set<String> KEY_PATCH = Set.of("limits", "profiles");
    private static final Set<String> ROTATE = Set.of("overlap_seconds");
    private static final Set<String> PAUSE = Set.of("scope", "reason", "until", "for_seconds");
    /** Longest page a list answers. */
    static final int MAX_PAGE = 500;

    private final Vertx vertx;
    private final ControlPlane control;
    private final Optional<LedgerQueries> usage;

    private ManagementRoutes(Vertx vertx, ControlPlane control, Optional<LedgerQueries> usage) {
        this.vertx = vertx;
        this.control = control;
        this.usage = usage;
    }

    static void install(AdminRouter r, Vertx vertx, ControlPlane control, Optional<LedgerQueries> usage) {
        ManagementRoutes m = new ManagementRoutes(vertx, control, usage);
        r.add(HttpMethod.GET, "/admin/orgs", Access.READ, m::listOrgs);
        r.add(HttpMethod.POST, "/admin/orgs", Access.ADMIN, m::createOrg);
        r.add(HttpMethod.GET, "/admin/orgs/{org}", Access.READ, m::getOrg);
        r.add(HttpMethod.PATCH, "/admin/orgs/{org}", Access.ADMIN, m::patchOrg);
        r.add(HttpMethod.DELETE, "/admin/orgs/{org}", Access.ADMIN, m::deleteOrg);
        r.add(HttpMethod.GET, "/admin/tenants", Access.READ, m::listTenants);
        r.add(HttpMethod.POST, "/admin/tenants", Access.CHANGE, m::createTenant);
        r.add(HttpMethod.GET, "/admin/tenants/{tenant}", Access.READ, m::getTenant);
        r.add(HttpMethod.PATCH, "/admin/tenants/{tenant}", Access.CHANGE, m::patchTenant);
        r.add(HttpMethod.DELETE, "/admin/tenants/{tenant}", Access.CHANGE, m::deleteTenant);
        r.add(HttpMethod.GET, "/admin/tenants/{tenant}/teams", Access.READ, m::listTeams);
        r.add(HttpMethod.POST, "/admin/tenants/{tenant}/teams", Access.CHANGE, m::createTeam);
        r.add(HttpMethod.PATCH, "/admin/tenants/{tenant}/teams/{team}", Access.CHANGE, m::patchTeam);
        r.add(HttpMethod.DELETE, "/admin/tenants/{tenant}/teams/{team}", Access.CHANGE, m::deleteTeam);
        r.add(HttpMethod.GET, "/admin/keys", Access.READ, m::listKeys);
        r.add(HttpMethod.POST, "/admin/keys", Access.CHANGE, m::createKey);
        r.add(HttpMethod.GET, "/admin/keys/{key}", Access.READ, m::getKey);
        r.add(HttpMethod.PATCH, "/admin/keys/{key}", Access.CHANGE, m::patchKey);
        r.add(HttpMethod.DELETE, "/admin/keys/{key}", Access.CHANGE, m::deleteKey);
        r.add(HttpMethod.POST, "/admin/keys/{key}/rotate", Access.CHANGE, m::rotateKey);
        r.add(HttpMethod.GET, "/admin/pauses", Access.READ, m::listPauses);
        r.add(HttpMethod.POST, "/admin/pauses", Access.CHANGE, m::pause);
        r.add(HttpMethod.DELETE, "/admin/pauses/{scope}", Access.CHANGE, m::resume);
        r.add(HttpMethod.GET, "/admin/usage", Access.READ, m::usage);
        r.add(HttpMethod.GET, "/admin/quota/{scope}", Access.READ, m::quota);
        r.add(HttpMethod.GET, "/admin/deployments/{deployment}", Access.READ, m::deployment);
        r.add(HttpMethod.GET, "/admin/profiles", Access.READ, m::listProfiles);
        r.add(HttpMethod.GET, "/admin/profiles/{profile}", Access.READ, m::getProfile);
        r.add(HttpMethod.POST, "/admin/profiles", Access.ADMIN, m::createProfile);
        r.add(HttpMethod.PATCH, "/admin/profiles/{profile}", Access.ADMIN, m::patchProfile);
        r.add(HttpMethod.DELETE, "/admin/profiles/{profile}", Access.ADMIN, m::deleteProfile);
        r.add(HttpMethod.POST, "/admin/rollouts", Access.ADMIN, m::createRollout);
        r.add(HttpMethod.DELETE, "/admin/rollouts/{rollout}", Access.ADMIN, m::deleteRollout);
        r.add(HttpMethod.POST, "/admin/warmups", Access.ADMIN, m::createWarmup);
        r.add(HttpMethod.DELETE, "/admin/warmups/{warmup}", Access.ADMIN, m::deleteWarmup);
        r.add(HttpMethod.GET, "/admin/audit", Access.READ, m::audit);
        r.add(HttpMethod.POST, "/admin/reload", Access.ADMIN, m::reload);
        r.add(HttpMethod.GET, "/admin/prices", Access.READ, m::getPrices);
        r.add(HttpMethod.PUT, "/admin/prices", Access.ADMIN, m::putPrices);
        io.vertx.core.buffer.Buffer openApi = openApi();
        r.add(HttpMethod.GET, "/admin/openapi.json", Access.OPEN, x -> x.send(200, "application/json", openApi));
    }

    /** The OpenAPI 3.1 document of these routes, a resource beside this class; OpenApiTest checks it against the router. */
    static io.vertx.core.buffer.Buffer openApi() {
        try (var in = ManagementRoutes.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is packaged beside ManagementRoutes");
            }
            return io.vertx.core.buffer.Buffer.buffer(in.readAllBytes());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- organisations ----

    private void listOrgs(AdminExchange x) {
        Actor a = actor(x);
        List<JsonNode> items = new ArrayList<>();
        for (OrgConfig o : control.config().orgs().values()) {
            if (control.mayRead(a, Scope.of(ScopeLevel.ORGANISATION, o.id()))) {
                items.add(ControlJson.org(o));
            }
        }
        page(x, items);
    }

    private void getOrg(AdminExchange x) {
        answer(x, 200, () -> {
            String id = x.param("org");
            control.requireRead(actor(x), Scope.of(ScopeLevel.ORGANISATION, id));
            return ControlJson.org(Optional.ofNullable(control.config().orgs().get(id))
                    .orElseThrow(() -> TreeEdits.notFound("org", id)));
        });
    }

    private void createOrg(AdminExchange x) {
        body(x, ORG).ifPresent(b -> change(x, 201, () -> ControlJson.org(control.createOrg(actor(x),
                b.get("id").required().text(), ControlJson.limits(b.get("limits").json().orElse(null), "limits")))));
    }

    private void patchOrg(AdminExchange x) {
        body(x, ORG_PATCH).ifPresent(b -> change(x, 200, () -> ControlJson.org(control.setOrgLimits(actor(x),
                x.param("org"), ControlJson.limits(b.get("limits").required().json().orElseThrow(), "limits")))));
    }

    // ---- tenants ----

    private void listTenants(AdminExchange x) {
        Actor a = actor(x);
        Optional<String> org = x.query("org");
        List<JsonNode> items = new ArrayList<>();
        for (OrgConfig o : control.config().orgs().values()) {
            if (org.isPresent() && !org.get().equals(o.id())) {
                continue;
            }
            for (TenantConfig t : o.tenants().values()) {
                if (control.mayRead(a, Scope.of(ScopeLevel.TENANT, t.id()))) {
                    items.add(ControlJson.tenant(o.id(), t));
                }
            }
        }
        page(x, items);
    }

    private void getTenant(AdminExchange x) {
        answer(x, 200, () -> {
            String id = x.param("tenant");
            TreeEdits.TenantAt at = TreeEdits.tenant(control.config(), id).orElseThrow(() -> TreeEdits.notFound("tenant", id));
            control.requireRead(actor(x), Scope.of(ScopeLevel.TENANT, id));
            return withPause(ControlJson.tenant(at.org().id(), at.tenant()), Scope.of(ScopeLevel.TENANT, id));
        });
    }

    private void createTenant(AdminExchange x) {
        body(x, TENANT).ifPresent(b -> change(x, 201, () -> {
            String org = b.get("org").required().text();
            TenantConfig t = control.createTenant(actor(x), org, b.get("id").required().text(), weight(b),
                    limits(b, "guaranteed"), limits(b, "limits"));
            return ControlJson.tenant(org, t);
        }));
    }

    private void patchTenant(AdminExchange x) {
        body(x, TENANT_PATCH).ifPresent(b -> change(x, 200, () -> {
            String id = x.param("tenant");
            Optional<Double> w = b.get("weight").present() ? Optional.of(weight(b)) : Optional.empty();
            TenantConfig t = control.updateTenant(actor(x), id, w, optLimits(b, "guaranteed"), optLimits(b, "limits"));
            return ControlJson.tenant(TreeEdits.tenant(control.config(), id).orElseThrow().org().id(), t);
        }));
    }

    // ---- teams ----

    private void listTeams(AdminExchange x) {
        answer(x, 200, () -> {
            String id = x.param("tenant");
            TreeEdits.TenantAt at = TreeEdits.tenant(control.config(), id).orElseThrow(() -> TreeEdits.notFound("tenant", id));
            control.requireRead(actor(x), Scope.of(ScopeLevel.TENANT, id));
            ObjectNode out = AdminExchange.JSON.createObjectNode();
            ArrayNode items = out.putArray("items");
            for (TeamConfig t : at.tenant().teams().values()) {
                items.add(ControlJson.team(id, t));
            }
            return out;
        });
    }

    private void createTeam(AdminExchange x) {
        body(x, TEAM).ifPresent(b -> change(x, 201, () -> ControlJson.team(x.param("tenant"), control.createTeam(actor(x),
                x.param("tenant"), b.get("name").required().text(), limits(b, "limits")))));
    }

    private void patchTeam(AdminExchange x) {
        body(x, TEAM_PATCH).ifPresent(b -> change(x, 200, () -> ControlJson.team(x.param("tenant"),
                control.setTeamLimits(actor(x), x.param("tenant"), x.param("team"), limits(b, "limits")))));
    }

    // ---- keys ----

    private void listKeys(AdminExchange x) {
        Actor a = actor(x);
        Optional<String> tenant = x.query("tenant");
        List<JsonNode> items = new ArrayList<>();
        for (KeyConfig k : control.config().keys()) {
            if (tenant.isPresent() && !tenant.get().equals(k.tenant())) {
                continue;
            }
            if (control.mayRead(a, Scope.of(ScopeLevel.API_KEY, k.id()))) {
                items.add(ControlJson.key(k));
            }
        }
        page(x, items);
    }

    private void getKey(AdminExchange x) {
        answer(x, 200, () -> {
            String id = x.param("key");
            KeyConfig k = TreeEdits.key(control.config(), id).orElseThrow(() -> TreeEdits.notFound("key", id)).key();
            control.requireRead(actor(x), Scope.of(ScopeLevel.API_KEY, id));
            return withPause(ControlJson.key(k), Scope.of(ScopeLevel.API_KEY, id));
        });
    }

    private void createKey(AdminExchange x) {
        body(x, KEY).ifPresent(b -> change(x, 201, () -> {
            List<String> profiles = new ArrayList<>();
            b.get("profiles").items().forEach(p -> profiles.add(p.text()));
            ControlPlane.Issued issued = control.createKey(actor(x), new ControlPlane.KeySpec(b.get("id").required().text(),
                    b.get("tenant").required().text(), b.get("team").required().text(), profiles,
                    b.get("class").optText(), b.get("max_class").optText(), limits(b, "limits")));
            return shownOnce(issued);
        }));
    }

    private void patchKey(AdminExchange x) {
        body(x, KEY_PATCH).ifPresent(b -> change(x, 200, () -> {
            Optional<List<String>> profiles = Optional.empty();
            if (b.get("profiles").present()) {
                List<String> ps = new ArrayList<>();
                b.get("profiles").items().forEach(p -> ps.add(p.text()));
                profiles = Optional.of(ps);
            }
            return ControlJson.key(control.updateKey(actor(x), x.param("key"), optLimits(b, "limits"), profiles));
        }));
    }

    private void deleteOrg(AdminExchange x) {
        cascade(x).ifPresent(cascade -> change(x, 200, () -> ControlJson.org(control.deleteOrg(actor(x), x.param("org"),
                cascade)).put("deleted", true)));
    }

    private void deleteTenant(AdminExchange x) {
        cascade(x).ifPresent(cascade -> change(x, 200, () -> {
            String id = x.param("tenant");
            String org = dev.sluice.runtime.control.TreeEdits.tenant(control.config(), id).map(t -> t.org().id()).orElse("");
            return ControlJson.tenant(org, control.deleteTenant(actor(x), id, cascade)).put("deleted", true);
        }));
    }

    private void deleteTeam(AdminExchange x) {
        cascade(x).ifPresent(cascade -> change(x, 200, () -> ControlJson.team(x.param("tenant"),
                control.deleteTeam(actor(x), x.param("tenant"), x.param("team"), cascade)).put("deleted", true)));
    }

    /** {@code ?cascade=true|false} (default false); a 400 naming the parameter otherwise. */
    private static Optional<Boolean> cascade(AdminExchange x) {
        String v = x.query("cascade").orElse("false");
        if (v.equals("true") || v.equals("false")) {
            return Optional.of(v.equals("true"));
        }
        x.error(400, "invalid_value", "cascade: \"" + v + "\" (expected: true or false)", Optional.of("cascade"));
        return Optional.empty();
    }

    private void deleteKey(AdminExchange x) {
        change(x, 200, () -> ControlJson.key(control.deleteKey(actor(x), x.param("key"))).put("deleted", true));
    }

    private void rotateKey(AdminExchange x) {
        Optional<YamlNode> b = x.bodyBytes().length == 0 ? Optional.of(YamlNode.root(null)) : body(x, ROTATE);
        b.ifPresent(n -> change(x, 200, () -> {
            long seconds = n.get("overlap_seconds").longValue(0);
            return shownOnce(control.rotateKey(actor(x), x.param("key"), Duration.ofSeconds(seconds)));
        }));
    }

    /** {@code n} with the pause of {@code scope}, when one holds. */
    private ObjectNode withPause(ObjectNode n, Scope scope) {
        control.runtime().pauses().of(scope, control.runtime().clock().epochMillis())
                .ifPresent(p -> n.set("paused", ControlJson.pause(p)));
        return n;
    }

    private static ObjectNode shownOnce(ControlPlane.Issued issued) {
        ObjectNode n = ControlJson.key(issued.key());
        n.put("secret", issued.secret());
        issued.oldSecretUntil().ifPresent(u -> n.put("old_secret_valid_until", u.toString()));
        n.put("note", "The secret is shown this once; Sluice keeps only its SHA-256.");
        return n;
    }

    // ---- pauses ----

    private void listPauses(AdminExchange x) {
        List<JsonNode> items = new ArrayList<>();
        for (Pause p : control.pauses(actor(x))) {
            items.add(ControlJson.pause(p));
        }
        page(x, items);
    }

    private void pause(AdminExchange x) {
        body(x, PAUSE).ifPresent(b -> change(x, 201, () -> {
            Scope scope = ControlPlane.scope(b.get("scope").required().text());
            Optional<Instant> until = Optional.empty();
            if (b.get("until").present() && b.get("for_seconds").present()) {
                throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "until",
                        "until, for_seconds: both given (expected: at most one)");
            }
            if (b.get("until").present()) {
                try {
                    until = Optional.of(Instant.parse(b.get("until").text()));
                } catch (DateTimeParseException e) {
                    throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "until", "until: \""
                            + b.get("until").text() + "\" (expected: an ISO-8601 instant, 2026-12-02T03:00:00Z)");
                }
            } else if (b.get("for_seconds").present()) {
                long s = b.get("for_seconds").longValue(0);
                if (s <= 0 || s > Duration.ofDays(365).toSeconds()) {
                    throw new EditRefused(EditRefused.Why.INVALID, "invalid_value", "for_seconds", "for_seconds: " + s
                            + " (expected: 1 to " + Duration.ofDays(365).toSeconds() + ")");
                }
                until = Optional.of(Instant.ofEpochMilli(control.runtime().clock().epochMillis()).plusSeconds(s));
            }
            return ControlJson.pause(control.pause(actor(x), scope, b.get("reason").required().text(), until));
        }));
    }

    private void resume(AdminExchange x) {
        change(x, 200, () -> ControlJson.pause(control.resume(actor(x), ControlPlane.scope(x.param("scope"))))
                .put("resumed", true));
    }

    private void reload(AdminExchange x) {
        change(x, 200, () -> {
            ControlPlane.Reload done = control.reloadFile(actor(x));
            SluiceConfig c = done.config();
            ObjectNode out = AdminExchange.JSON.createObjectNode().put("reloaded", c.sourceName()).put("orgs", c.orgs().size())
                    .put("tenants", c.tenants().size()).put("keys", c.keys().size()).put("profiles", c.profiles().size());
            // What the file changes that this process read at start, kept as running until a restart.
            done.needsRestart().forEach(out.putArray("needs_restart")::add);
            return out;
        });
    }

    // ---- prices ----

    private void getPrices(AdminExchange x) {
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        out.set("prices", ControlJson.prices(control.runtime().config().prices()));
        x.json(200, out);
    }

    private void putPrices(AdminExchange x) {
        Optional<YamlNode> b = body(x, Set.of("prices"));
        if (b.isEmpty()) {
            return;
        }
        change(x, 200, () -> {
            dev.sluice.runtime.config.Prices p;
            try {
                p = ControlJson.prices(b.get().get("prices").json().orElse(null), "prices");
            } catch (ConfigException e) {
                throw ControlPlane.invalid(e);
            }
            ObjectNode out = AdminExchange.JSON.createObjectNode();
            out.set("prices", ControlJson.prices(control.setPrices(actor(x), p)));
            return out;
        });
    }

    // ---- usage and audit ----

    private void usage(AdminExchange x) {
        if (usage.isEmpty()) {
            x.error(404, "ledger_off", "The usage ledger is off (ledger.kind: off): there is no usage to read.",
                    Optional.empty());
            return;
        }
        Actor a = actor(x);
        Duration since;
        try {
            since = YamlNode.parseDuration("since", x.query("since").orElse("24h"));
        } catch (ConfigException e) {
            x.error(400, "invalid_value", e.getMessage(), Optional.of("since"));
            return;
        }
        String byName = x.query("by").orElse("tenant");
        Optional<Grouping> by = Grouping.byWireName(byName);
        if (by.isEmpty()) {
            x.error(400, "invalid_value", "by: \"" + byName + "\" (expected: one of tenant, key, profile, deployment, class)",
                    Optional.of("by"));
            return;
        }
        if (a.scope().kind() == AdminScope.Kind.PARTNER && by.get() != Grouping.TENANT && by.get() != Grouping.KEY) {
            x.error(403, "outside_partner_subtree", "A partner reads usage by tenant or by key: profiles, deployments "
                    + "and classes are shared with others.", Optional.of("by"));
            return;
        }
        offloaded(x, 200, () -> {
            Instant now = Instant.ofEpochMilli(control.runtime().clock().epochMillis());
            Usage u = usage.get().usage(Window.last(since, now), by.get());
            ObjectNode out = AdminExchange.JSON.createObjectNode().put("by", by.get().wireName())
                    .put("from", u.covered().from().toString()).put("to", u.covered().to().toString());
            ArrayNode rows = out.putArray("rows");
            for (UsageRow r : u.rows()) {
                if (mayReadGroup(a, by.get(), r.group())) {
                    rows.add(row(r));
                }
            }
            if (a.scope().kind() != AdminScope.Kind.PARTNER) {
                out.set("total", row(u.total()));
            }
            return out;
        });
    }

    /** What a scope's bucket holds now, per dimension: its remaining quota. */
    private void quota(AdminExchange x) {
        offloaded(x, 200, () -> {
            Scope scope = ControlPlane.scope(x.param("scope"));
            control.requireRead(actor(x), scope);
            ObjectNode out = AdminExchange.JSON.createObjectNode().put("scope", scope.key());
            ObjectNode dims = out.putObject("dimensions");
            // Read from the store (on Redis, a network call: hence the worker); a scope without limits has no bucket.
            control.runtime().governor().bucket(scope).ifPresent(b -> b.dimensions().forEach(d -> dims
                    .putObject(d.dimension().limiterName()).put("remaining", (long) Math.floor(d.available()))
                    .put("capacity", d.capacity()).put("in_flight", d.open()).put("rate_factor", d.rateFactor())
                    .put("paused_ms", d.pausedForNanos() / 1_000_000)));
            return withPause(out, scope);
        });
    }

    /**
     * The model profiles as configured: each with its routing, fallback policy and deployments in
     * order (their provider model, weight, kind, region and the shared provider scopes they are
     * under). Operators only: profiles and deployments are above every partner's subtree.
     */
    private void listProfiles(AdminExchange x) {
        var c = control.config();
        List<JsonNode> items = new ArrayList<>();
        for (var p : c.profiles().values()) {
            try {
                control.requireRead(actor(x), Scope.of(ScopeLevel.MODEL_PROFILE, p.id()));
            } catch (RuntimeException e) {
                refuse(x, e);
                return;
            }
            ObjectNode n = ControlJson.profile(p, c);
            items.add(n);
        }
        page(x, items);
    }

    /** One model profile, as the list shows it. Operators only. */
    private void getProfile(AdminExchange x) {
        answer(x, 200, () -> {
            String id = x.param("profile");
            control.requireRead(actor(x), Scope.of(ScopeLevel.MODEL_PROFILE, id));
            var c = control.config();
            var p = Optional.ofNullable(c.profiles().get(id)).orElseThrow(() -> TreeEdits.notFound("profile", id));
            return ControlJson.profile(p, c);
        });
    }

    /** A created resource's name and the rest of its body, the fields of its configuration section. */
    private record Named(String id, ObjectNode definition) {}

    /**
     * The body of a create: its {@code id} (a string, else 422 naming {@code id}) and a copy of the
     * other fields; empty when the answer has been given.
     */
    private static Optional<Named> named(AdminExchange x, String what) {
        Optional<ObjectNode> json = x.jsonBody();
        if (json.isEmpty()) {
            return Optional.empty();
        }
        JsonNode id = json.get().path("id");
        if (!id.isTextual()) {
            x.error(422, "invalid_value", "id: " + (id.isMissingNode() ? "missing" : id.toString())
                    + " (expected: the " + what + "'s name, a string)", Optional.of("id"));
            return Optional.empty();
        }
        ObjectNode definition = json.get().deepCopy();
        definition.remove("id");
        return Optional.of(new Named(id.asText(), definition));
    }

    /**
     * Adds a profile: {@code id} and the fields of a profile in a configuration file, checked as
     * the file's are (422 naming the field), audited, journaled and relayed like every change.
     */
    private void createProfile(AdminExchange x) {
        Optional<Named> named = named(x, "profile");
        if (named.isEmpty()) {
            return;
        }
        String id = named.get().id();
        ObjectNode definition = named.get().definition();
        change(x, 201, () -> {
            var p = control.createProfile(actor(x), id, definition);
            // On this worker, not on an event loop at the profile's first request: a vocabulary takes seconds to load.
            control.runtime().estimator().countTokens(p.tokenizer(), "warm up");
            return ControlJson.profile(p, control.config());
        });
    }

    /**
     * Adds a rollout: {@code id} and the fields of a rollout in a configuration file, checked as the
     * file's are (422 naming the field: {@code steps[1]}, {@code to}, {@code thresholds.error_rate}),
     * audited, journaled and relayed like every change; 201 with the rollout as inspected.
     */
    private void createRollout(AdminExchange x) {
        Optional<Named> named = named(x, "rollout");
        if (named.isEmpty()) {
            return;
        }
        String id = named.get().id();
        ObjectNode definition = named.get().definition();
        change(x, 201, () -> {
            var r = control.createRollout(actor(x), id, definition);
            return RolloutRoutes.view(control.runtime().rollouts().inspect(r.id()));
        });
    }

    /** Removes a rollout whatever its status: its profile is routed as configured again. */
    private void deleteRollout(AdminExchange x) {
        change(x, 200, () -> {
            var r = control.deleteRollout(actor(x), x.param("rollout"));
            return AdminExchange.JSON.createObjectNode().put("id", r.id()).put("profile", r.profile())
                    .put("from", r.from()).put("to", r.to()).put("deleted", true);
        });
    }

    /**
     * Adds a warm-up: {@code id} and the fields of a warm-up in a configuration file, checked as the
     * file's are (422 naming the field: {@code tenant}, {@code max_growth_per_minute.rpm},
     * {@code thresholds.provider_429_rate}), audited, journaled and relayed like every change; 201
     * with the warm-up as inspected (waiting for its start).
     */
    private void createWarmup(AdminExchange x) {
        Optional<Named> named = named(x, "warm-up");
        if (named.isEmpty()) {
            return;
        }
        String id = named.get().id();
        ObjectNode definition = named.get().definition();
        change(x, 201, () -> {
            var w = control.createWarmup(actor(x), id, definition);
            return WarmupRoutes.view(control.runtime().warmups().inspect(w.id()));
        });
    }

    /** Removes a warm-up whatever its status: its tenant runs at its limits again. */
    private void deleteWarmup(AdminExchange x) {
        change(x, 200, () -> {
            var w = control.deleteWarmup(actor(x), x.param("warmup"));
            return AdminExchange.JSON.createObjectNode().put("id", w.id()).put("tenant", w.tenant()).put("deleted", true);
        });
    }

    /** Removes a profile no key or rollout uses (409 naming them otherwise). */
    private void deleteProfile(AdminExchange x) {
        change(x, 200, () -> ControlJson.profile(control.deleteProfile(actor(x), x.param("profile")), control.config())
                .put("deleted", true));
    }

    /**
     * Changes a profile's routing: its deployments (order, provider models, weights), its routing
     * and its fallback policy, checked as the configuration file's are (422 naming the field, and
     * nothing changed), audited, kept in the journal and so on every replica.
     */
    private void patchProfile(AdminExchange x) {
        Optional<ObjectNode> json = x.jsonBody();
        if (json.isEmpty()) {
            return;
        }
        change(x, 200, () -> {
            var p = control.updateProfile(actor(x), x.param("profile"), json.get());
            return ControlJson.profile(p, control.config());
        });
    }

    /**
     * A deployment's governor and adaptive state: its queues by class, each tenant's share and
     * borrowing, and (with adaptive control) its mode, multipliers, ramp stage and cooldowns. Shared
     * by every tenant, so not a partner's to read.
     */
    private void deployment(AdminExchange x) {
        offloaded(x, 200, () -> {
            String id = x.param("deployment");
            Scope scope = Scope.of(ScopeLevel.PROVIDER_DEPLOYMENT, id);
            if (!control.config().deployments().containsKey(id)) {
                throw TreeEdits.notFound("deployment", id);
            }
            control.requireRead(actor(x), scope);
            ObjectNode out = AdminExchange.JSON.createObjectNode().put("deployment", id);
            ObjectNode queued = out.putObject("queued");
            ArrayNode shares = out.putArray("shares");
            for (var lane : control.runtime().governor().snapshot().lanes()) {
                if (!lane.deployment().equals(id)) {
                    continue;
                }
                lane.queued().forEach((c, n) -> queued.put(c.wireName(), n));
                for (var sh : lane.shares()) {
                    ObjectNode n = shares.addObject().put("tenant", sh.tenant()).put("weight", sh.weight())
                            .put("admitted", sh.admitted()).put("revocations", sh.revocations());
                    n.set("guaranteed_per_minute", perDimension(sh.guaranteedPerMinute()));
                    n.set("used_per_minute", perDimension(sh.usedPerMinute()));
                    n.set("borrowed_per_minute", perDimension(sh.borrowedPerMinute()));
                }
            }
            FleetJson.add(out, control.runtime(), id);
            control.runtime().controller(id).ifPresent(c -> {
                var a = c.snapshot();
                ObjectNode n = out.putObject("adaptive").put("mode", a.mode().wireName()).put("ramp_stage", a.rampStage())
                        .put("ramp_fraction", a.rampFraction()).put("limited_ratio", a.limitedRatio())
                        .put("headerless", a.headerless()).put("climb_slowdowns", a.climbSlowdowns());
                n.set("multipliers", perDimension(a.multipliers()));
                n.set("rate_factors", perDimension(a.rateFactors()));
                ObjectNode paused = n.putObject("paused_ms");
                a.pausedForNanos().forEach((d, v) -> paused.put(d.limiterName(), v / 1_000_000));
            });
            return withPause(out, scope);
        });
    }

    private static ObjectNode perDimension(java.util.Map<dev.sluice.limits.Dimension, Double> m) {
        ObjectNode n = AdminExchange.JSON.createObjectNode();
        m.forEach((d, v) -> n.put(d.limiterName(), v));
        return n;
    }

    private boolean mayReadGroup(Actor a, Grouping by, String group) {
        if (a.scope().kind() != AdminScope.Kind.PARTNER) {
            return true;
        }
        if (group.isEmpty()) {
            return false;
        }
        return control.mayRead(a, Scope.of(by == Grouping.TENANT ? ScopeLevel.TENANT : ScopeLevel.API_KEY, group));
    }

    private static ObjectNode row(UsageRow r) {
        return AdminExchange.JSON.createObjectNode().put("group", r.group()).put("requests", r.requests())
                .put("answered", r.answered()).put("refused_locally", r.refusedLocally())
                .put("provider_rejected", r.providerRejected()).put("input_tokens", r.inputTokens())
                .put("output_tokens", r.outputTokens()).put("cache_read_tokens", r.cacheReadTokens())
                .put("cost_usd", java.math.BigDecimal.valueOf(r.costMicros(), 6).stripTrailingZeros())
                .put("estimated_cost_usd", java.math.BigDecimal.valueOf(r.estimatedCostMicros(), 6).stripTrailingZeros());
    }

    private void audit(AdminExchange x) {
        Actor a = actor(x);
        int limit = (int) Math.min(MAX_PAGE, Math.max(1, parse(x.query("limit").orElse("100"), 100)));
        long before = parse(x.query("before").orElse(Long.toString(Long.MAX_VALUE)), Long.MAX_VALUE);
        offloaded(x, 200, () -> {
            ObjectNode out = AdminExchange.JSON.createObjectNode();
            ArrayNode items = out.putArray("items");
            for (AuditRecord r : control.journal().audit(limit, before)) {
                if (a.scope().kind() == AdminScope.Kind.PARTNER && !readableTarget(a, r.target())) {
                    continue;
                }
                ObjectNode n = items.addObject().put("seq", r.seq()).put("at", r.at().toString())
                        .put("token_id", r.tokenId()).put("action", r.action()).put("target", r.target());
                n.set("before", AdminExchange.JSON.readTree(r.before()));
                n.set("after", AdminExchange.JSON.readTree(r.after()));
            }
            return out;
        });
    }

    private boolean readableTarget(Actor a, String target) {
        try {
            return control.mayRead(a, ControlPlane.scope(target));
        } catch (EditRefused e) {
            return false;
        }
    }

    // ---- the wire ----

    private static Actor actor(AdminExchange x) {
        return new Actor(x.principal().tokenId(), x.principal().scope(), x.principal().oversubscription());
    }

    /**
     * The body as a JSON object with only {@code allowed} fields, or empty once a 400 names the
     * problem: not JSON, not an object, an unknown field.
     */
    private static Optional<YamlNode> body(AdminExchange x, Set<String> allowed) {
        Optional<ObjectNode> json = x.jsonBody();
        if (json.isEmpty()) {
            return Optional.empty();
        }
        for (var e : json.get().properties()) {
            if (!allowed.contains(e.getKey())) {
                x.error(400, "unknown_field", e.getKey() + ": an unknown field (expected: one of " + new TreeSet<>(allowed)
                        + ")", Optional.of(e.getKey()));
                return Optional.empty();
            }
        }
        return Optional.of(YamlNode.root(json.get()));
    }

    private static Limits limits(YamlNode b, String field) {
        return ControlJson.limits(b.get(field).json().orElse(null), field);
    }

    private static Optional<Limits> optLimits(YamlNode b, String field) {
        return b.get(field).present() ? Optional.of(limits(b, field)) : Optional.empty();
    }

    private static double weight(YamlNode b) {
        YamlNode w = b.get("weight");
        if (w.present() && !w.json().orElseThrow().isNumber()) {
            throw new ConfigException("weight", "a number > 0", w.describe());
        }
        return w.doubleValue(dev.sluice.governor.ScopeSettings.DEFAULT_WEIGHT);
    }

    private static void page(AdminExchange x, List<JsonNode> all) {
        long offset = parse(x.query("offset").orElse("0"), -1);
        long limit = parse(x.query("limit").orElse("100"), -1);
        if (offset < 0 || limit < 1 || limit > MAX_PAGE) {
            x.error(400, "invalid_value", "offset, limit: " + x.query("offset").orElse("0") + ", "
                    + x.query("limit").orElse("100") + " (expected: offset >= 0, limit 1 to " + MAX_PAGE + ")",
                    Optional.of(offset < 0 ? "offset" : "limit"));
            return;
        }
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        ArrayNode items = out.putArray("items");
        int end = (int) Math.min(all.size(), offset + limit);
        for (int i = (int) Math.min(offset, all.size()); i < end; i++) {
            items.add(all.get(i));
        }
        out.put("total", all.size());
        if (end < all.size()) {
            out.put("next_offset", end);
        }
        x.json(200, out);
    }

    private static long parse(String s, long fallback) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /** Answers a read: {@code work} in place (it touches memory only). */
    private static void answer(AdminExchange x, int status, Callable<JsonNode> work) {
        try {
            x.json(status, work.call());
        } catch (Exception e) {
            refuse(x, e);
        }
    }

    /** Answers a change: {@code work} on a worker (the journal may write to the database), serialised. */
    private void change(AdminExchange x, int status, Callable<JsonNode> work) {
        offloaded(x, status, work);
    }

    /** Answers with {@code work} run on a worker, one at a time: it may wait on the database. */
    private void offloaded(AdminExchange x, int status, Callable<JsonNode> work) {
        vertx.<JsonNode>executeBlocking(work, true).onComplete(r -> {
            if (r.succeeded()) {
                x.json(status, r.result());
            } else {
                refuse(x, r.cause());
            }
        });
    }

    private static void refuse(AdminExchange x, Throwable e) {
        switch (e) {
            case EditRefused r -> x.error(switch (r.why()) {
                case NOT_FOUND -> 404;
                case CONFLICT -> 409;
                case INVALID -> 422;
                case FORBIDDEN -> 403;
            }, r.code(), r.getMessage(), r.field().isEmpty() ? Optional.empty() : Optional.of(r.field()));
            case ConfigException c -> x.error(422, "invalid_value", c.getMessage(), Optional.of(c.path()));
            default -> x.error(500, "internal_error", "The admin request failed: " + e.getClass().getSimpleName() + ".",
                    Optional.empty());
        }
    }
}
