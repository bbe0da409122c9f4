package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.governor.AdmissionRequest;
import dev.sluice.governor.Decision;
import dev.sluice.governor.Demand;
import dev.sluice.governor.RequestPath;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin and partner API through real HTTP on the admin port: each route, each refusal, and
 * each change seen at once on the client port. Every test works on names of its own.
 */
class ManagementApiTest {

    static final SluiceConfig CONFIG = ConfigLoader.parse("""
            server: { port: 0 }
            admin:
              port: 0
              max_requests_per_minute: 60000
              tokens:
                ops: { scope: admin, token: "sla-mgmt-admin" }
                viewer: { scope: read, token: "sla-mgmt-read" }
                reseller: { scope: "partner:resale", token: "sla-mgmt-partner" }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            orgs:
              o: { tenants: { acme: { teams: { x: { keys: { k: { secret: "sk-mgmt-k" } } } } } } }
              resale:
                limits: { rpm: 1000 }
                tenants: { shop: { limits: { rpm: 100 }, teams: { t: { keys: { shop-key: { secret: "sk-mgmt-shop" } } } } } }
            """, "mgmt.yaml", v -> null);

    static final String ADMIN = "sla-mgmt-admin";
    static final String READ = "sla-mgmt-read";
    static final String PARTNER = "sla-mgmt-partner";
    static Vertx vertx;
    static Gateway gateway;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        gateway = AdminCalls.start(vertx, CONFIG);
    }

    @AfterAll
    static void stop() throws Exception {
        AdminCalls.stop(gateway);
        AdminCalls.close(vertx);
    }

    static HttpResponse<String> admin(String method, String path, String token, String body) throws Exception {
        return AdminCalls.admin(gateway, method, path, token, body);
    }

    static HttpResponse<String> chat(String key) throws Exception {
        return AdminCalls.chat(gateway, key);
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return AdminCalls.json(r);
    }

    static JsonNode error(HttpResponse<String> r) throws Exception {
        return json(r).path("error");
    }

    @Test
    void aKeyMadeThroughTheApiOpensTheClientPortAtOnceAndItsSecretIsShownOnce() throws Exception {
        assertThat(admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"t1\",\"org\":\"o\",\"weight\":2,"
                + "\"limits\":{\"rpm\":50}}").statusCode()).isEqualTo(201);
        assertThat(admin("POST", "/admin/tenants/t1/teams", ADMIN, "{\"name\":\"web\"}").statusCode()).isEqualTo(201);
        HttpResponse<String> made = admin("POST", "/admin/keys", ADMIN, "{\"id\":\"k1\",\"tenant\":\"t1\",\"team\":\"web\"}");
        assertThat(made.statusCode()).isEqualTo(201);
        String secret = json(made).path("secret").asText();
        assertThat(secret).startsWith("sk-sluice-");
        // Paused, so the answer shows the key was recognised without reaching the (absent) provider.
        admin("POST", "/admin/pauses", ADMIN, "{\"scope\":\"tenant:t1\",\"reason\":\"setup\"}");
        assertThat(chat(secret).statusCode()).isEqualTo(429);
        assertThat(chat("sk-sluice-not-a-key").statusCode()).isEqualTo(401);
        HttpResponse<String> read = admin("GET", "/admin/keys/k1", READ, null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).doesNotContain(secret).doesNotContain("sha256");
        assertThat(json(read).path("tenant").asText()).isEqualTo("t1");
        assertThat(gateway.governor().config().settings(Scope.of(ScopeLevel.TENANT, "t1")).weight()).isEqualTo(2.0);
    }

    @Test
    void aPausedScopeAnswers429NotToRetryWithTheReasonAndTheExpiryUntilResumed() throws Exception {
        HttpResponse<String> paused = admin("POST", "/admin/pauses", ADMIN,
                "{\"scope\":\"key:k\",\"reason\":\"incident 42\",\"for_seconds\":600}");
        assertThat(paused.statusCode()).isEqualTo(201);
        assertThat(json(paused).path("until").asText()).endsWith("Z");
        HttpResponse<String> refused = chat("sk-mgmt-k");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("x-should-retry")).contains("false");
        assertThat(refused.headers().firstValue("retry-after")).isEmpty();
        assertThat(error(refused).path("gateway_decision").asText()).isEqualTo("paused");
        assertThat(error(refused).path("message").asText()).contains("incident 42").contains("until 20");
        assertThat(json(admin("GET", "/admin/pauses", READ, null)).path("items").toString()).contains("key:k");
        assertThat(admin("DELETE", "/admin/pauses/key:k", ADMIN, null).statusCode()).isEqualTo(200);
        assertThat(chat("sk-mgmt-k").statusCode()).isNotEqualTo(429);
        assertThat(admin("DELETE", "/admin/pauses/key:k", ADMIN, null).statusCode()).isEqualTo(404);
    }

    @Test
    void rotationIssuesANewSecretAndTheOldOneOpensTheKeyOnlyForTheOverlap() throws Exception {
        admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"t2\",\"org\":\"o\"}");
        admin("POST", "/admin/tenants/t2/teams", ADMIN, "{\"name\":\"web\"}");
        String first = json(admin("POST", "/admin/keys", ADMIN, "{\"id\":\"k2\",\"tenant\":\"t2\",\"team\":\"web\"}"))
                .path("secret").asText();
        admin("POST", "/admin/pauses", ADMIN, "{\"scope\":\"tenant:t2\",\"reason\":\"rotation test\"}");
        HttpResponse<String> overlapped = admin("POST", "/admin/keys/k2/rotate", ADMIN, "{\"overlap_seconds\":3600}");
        String second = json(overlapped).path("secret").asText();
        assertThat(json(overlapped).path("old_secret_valid_until").asText()).endsWith("Z");
        assertThat(chat(first).statusCode()).isEqualTo(429);
        assertThat(chat(second).statusCode()).isEqualTo(429);
        String third = json(admin("POST", "/admin/keys/k2/rotate", ADMIN, null)).path("secret").asText();
        assertThat(chat(second).statusCode()).isEqualTo(401);
        assertThat(chat(third).statusCode()).isEqualTo(429);
    }

    @Test
    void aChangedLimitReachesTheGovernorWithoutARestart() throws Exception {
        HttpResponse<String> r = admin("PATCH", "/admin/keys/shop-key", ADMIN, "{\"limits\":{\"rpm\":7,\"daily_tokens\":5000}}");
        assertThat(r.statusCode()).isEqualTo(200);
        var limits = gateway.governor().config().settings(Scope.of(ScopeLevel.API_KEY, "shop-key")).limits();
        assertThat(limits.get(Dimension.REQUESTS).orElseThrow().amount()).isEqualTo(7);
        assertThat(limits.get(Dimension.DAILY_TOKENS).orElseThrow().amount()).isEqualTo(5000);
    }

    @Test
    void moneyBudgetsAreWrittenAndShownInDollars() throws Exception {
        HttpResponse<String> r = admin("PATCH", "/admin/keys/shop-key", ADMIN,
                "{\"limits\":{\"daily_cost\":2.5,\"monthly_cost\":40}}");
        assertThat(r.statusCode()).isEqualTo(200);
        var limits = gateway.governor().config().settings(Scope.of(ScopeLevel.API_KEY, "shop-key")).limits();
        assertThat(limits.get(Dimension.DAILY_COST).orElseThrow().amount()).isEqualTo(2_500_000);
        assertThat(limits.get(Dimension.MONTHLY_COST).orElseThrow().amount()).isEqualTo(40_000_000);
        JsonNode shown = json(admin("GET", "/admin/keys/shop-key", READ, null)).path("limits");
        assertThat(shown.path("monthly_cost").decimalValue()).isEqualByComparingTo("40");
        HttpResponse<String> bad = admin("PATCH", "/admin/keys/shop-key", ADMIN, "{\"limits\":{\"monthly_cost\":0}}");
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(error(bad).path("field").asText()).isEqualTo("limits.monthly_cost");
    }

    @Test
    void aCapBelowWhatWasSpentIsRefusedWithACodeForItsCalendar() throws Exception {
        assertThat(admin("POST", "/admin/keys", ADMIN, "{\"id\":\"spender\",\"tenant\":\"acme\",\"team\":\"x\","
                + "\"limits\":{\"daily_cost\":10,\"monthly_cost\":100}}").statusCode()).isEqualTo(201);
        // Three dollars held on the key's budgets count as spent until settled.
        Decision held = gateway.governor().admit(new AdmissionRequest("spend-1", new RequestPath("o", "acme", "acme/x",
                "spender", "p", "d"), new Demand(10, 10, false, 0, 3_000_000), TrafficClass.INTERACTIVE,
                gateway.runtime().clock().nanos() + 10_000_000_000L));
        assertThat(held).isInstanceOf(Decision.Admitted.class);
        try {
            HttpResponse<String> monthly = admin("PATCH", "/admin/keys/spender", ADMIN,
                    "{\"limits\":{\"daily_cost\":10,\"monthly_cost\":2}}");
            assertThat(monthly.statusCode()).isEqualTo(422);
            assertThat(error(monthly).path("code").asText()).isEqualTo("monthly_cap_below_spent");
            assertThat(error(monthly).path("field").asText()).isEqualTo("limits.monthly_cost");
            assertThat(error(monthly).path("message").asText()).contains("2 dollars (expected: at least 3 dollars");
            HttpResponse<String> daily = admin("PATCH", "/admin/keys/spender", ADMIN,
                    "{\"limits\":{\"daily_cost\":2,\"monthly_cost\":100}}");
            assertThat(daily.statusCode()).isEqualTo(422);
            assertThat(error(daily).path("code").asText()).isEqualTo("daily_cap_below_spent");
            assertThat(error(daily).path("field").asText()).isEqualTo("limits.daily_cost");
        } finally {
            ((Decision.Admitted) held).reservation().release();
        }
    }

    @Test
    void badInputIsRefusedWithTheFieldPathAndChangesNothing() throws Exception {
        HttpResponse<String> unknown = admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"bad1\",\"org\":\"o\",\"wieght\":2}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(error(unknown).path("field").asText()).isEqualTo("wieght");
        HttpResponse<String> zero = admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"bad2\",\"org\":\"o\",\"weight\":0}");
        assertThat(zero.statusCode()).isEqualTo(422);
        assertThat(error(zero).path("field").asText()).isEqualTo("weight");
        HttpResponse<String> negative = admin("POST", "/admin/tenants", ADMIN,
                "{\"id\":\"bad3\",\"org\":\"o\",\"limits\":{\"rpm\":-5}}");
        assertThat(negative.statusCode()).isEqualTo(422);
        assertThat(error(negative).path("field").asText()).isEqualTo("limits.rpm");
        HttpResponse<String> absurd = admin("POST", "/admin/tenants", ADMIN,
                "{\"id\":\"bad4\",\"org\":\"o\",\"limits\":{\"rpm\":10000000000000}}");
        assertThat(absurd.statusCode()).isEqualTo(422);
        assertThat(error(absurd).path("field").asText()).isEqualTo("limits.rpm");
        HttpResponse<String> unknownLimiter = admin("POST", "/admin/tenants", ADMIN,
                "{\"id\":\"bad5\",\"org\":\"o\",\"limits\":{\"rqm\":5}}");
        assertThat(unknownLimiter.statusCode()).isEqualTo(422);
        assertThat(error(unknownLimiter).path("field").asText()).isEqualTo("limits.rqm");
        assertThat(admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"acme\",\"org\":\"o\"}").statusCode()).isEqualTo(409);
        assertThat(admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"bad6\",\"org\":\"nowhere\"}").statusCode())
                .isEqualTo(404);
        assertThat(admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"bad/7\",\"org\":\"o\"}").statusCode()).isEqualTo(422);
        assertThat(admin("POST", "/admin/tenants", ADMIN, "not json").statusCode()).isEqualTo(400);
        assertThat(admin("GET", "/admin/keys/none", ADMIN, null).statusCode()).isEqualTo(404);
        HttpResponse<String> badClass = admin("POST", "/admin/keys", ADMIN,
                "{\"id\":\"bad8\",\"tenant\":\"acme\",\"team\":\"x\",\"class\":\"urgent\"}");
        assertThat(badClass.statusCode()).isEqualTo(422);
        assertThat(error(badClass).path("field").asText()).isEqualTo("class");
        HttpResponse<String> badProfile = admin("POST", "/admin/keys", ADMIN,
                "{\"id\":\"bad9\",\"tenant\":\"acme\",\"team\":\"x\",\"profiles\":[\"p\",\"q\"]}");
        assertThat(error(badProfile).path("field").asText()).isEqualTo("profiles[1]");
        assertThat(json(admin("GET", "/admin/tenants?org=o", READ, null)).path("items").toString())
                .doesNotContain("bad");
    }

    @Test
    void aReadTokenChangesNothing() throws Exception {
        HttpResponse<String> r = admin("POST", "/admin/pauses", READ, "{\"scope\":\"key:k\",\"reason\":\"x\"}");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(admin("GET", "/admin/tenants", READ, null).statusCode()).isEqualTo(200);
    }

    @Test
    void aPartnerManagesItsSubtreeWithinItsAllocationAndNothingElse() throws Exception {
        HttpResponse<String> mine = admin("POST", "/admin/tenants", PARTNER,
                "{\"id\":\"shop2\",\"org\":\"resale\",\"limits\":{\"rpm\":600}}");
        assertThat(mine.statusCode()).isEqualTo(201);
        HttpResponse<String> over = admin("POST", "/admin/tenants", PARTNER,
                "{\"id\":\"shop3\",\"org\":\"resale\",\"limits\":{\"rpm\":400}}");
        assertThat(over.statusCode()).isEqualTo(422);
        assertThat(error(over).path("code").asText()).isEqualTo("exceeds_partner_allocation");
        assertThat(error(over).path("field").asText()).isEqualTo("limits.rpm");
        HttpResponse<String> beside = admin("PATCH", "/admin/tenants/acme", PARTNER, "{\"weight\":5}");
        assertThat(beside.statusCode()).isEqualTo(403);
        assertThat(error(beside).path("code").asText()).isEqualTo("outside_partner_subtree");
        assertThat(admin("POST", "/admin/tenants", PARTNER, "{\"id\":\"shop4\",\"org\":\"o\"}").statusCode())
                .isEqualTo(403);
        assertThat(admin("PATCH", "/admin/orgs/resale", PARTNER, "{\"limits\":{\"rpm\":5000}}").statusCode())
                .isEqualTo(403);
        assertThat(admin("POST", "/admin/pauses", PARTNER, "{\"scope\":\"deployment:d\",\"reason\":\"x\"}").statusCode())
                .isEqualTo(403);
        assertThat(admin("GET", "/admin/keys/k", PARTNER, null).statusCode()).isEqualTo(403);
        HttpResponse<String> key = admin("POST", "/admin/keys", PARTNER,
                "{\"id\":\"shop2-key\",\"tenant\":\"shop\",\"team\":\"t\",\"limits\":{\"rpm\":2000}}");
        assertThat(key.statusCode()).isEqualTo(422);
        assertThat(admin("POST", "/admin/pauses", PARTNER, "{\"scope\":\"tenant:shop\",\"reason\":\"unpaid\"}")
                .statusCode()).isEqualTo(201);
        assertThat(chat("sk-mgmt-shop").statusCode()).isEqualTo(429);
        assertThat(admin("DELETE", "/admin/pauses/tenant:shop", PARTNER, null).statusCode()).isEqualTo(200);
        String listed = json(admin("GET", "/admin/tenants", PARTNER, null)).path("items").toString();
        assertThat(listed).contains("shop2").doesNotContain("acme");
    }

    @Test
    void everyChangeIsAuditedWithTheTokenIdBeforeAndAfterButNoSecret() throws Exception {
        admin("PATCH", "/admin/tenants/acme", ADMIN, "{\"weight\":3}");
        HttpResponse<String> r = admin("GET", "/admin/audit?limit=500", READ, null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode change = null;
        for (JsonNode n : json(r).path("items")) {
            if (n.path("action").asText().equals("tenant.update") && n.path("target").asText().equals("tenant:acme")) {
                change = n;
            }
        }
        assertThat(change).isNotNull();
        assertThat(change.path("token_id").asText()).isEqualTo("ops");
        assertThat(change.path("before").path("weight").asDouble()).isEqualTo(1.0);
        assertThat(change.path("after").path("weight").asDouble()).isEqualTo(3.0);
        assertThat(change.path("at").asText()).endsWith("Z");
        assertThat(r.body()).doesNotContain("sha256").doesNotContain("sla-mgmt").doesNotContain("sk-sluice-");
    }

    @Test
    void aScopesRemainingQuotaIsReadFromItsBucket() throws Exception {
        JsonNode q = json(admin("GET", "/admin/quota/tenant:shop", READ, null));
        assertThat(q.path("dimensions").path("rpm").path("capacity").asLong()).isEqualTo(100);
        assertThat(q.path("dimensions").path("rpm").path("remaining").asLong()).isEqualTo(100);
        assertThat(admin("GET", "/admin/quota/tenant:acme", PARTNER, null).statusCode()).isEqualTo(403);
        assertThat(admin("GET", "/admin/quota/nonsense", READ, null).statusCode()).isEqualTo(422);
    }

    @Test
    void theProfilesAreShownWithTheirDeploymentsToOperatorsNotPartners() throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/profiles", READ, null);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode p = json(r).path("items").get(0);
        assertThat(p.path("id").asText()).isEqualTo("p");
        assertThat(p.path("routing").asText()).isEqualTo("order");
        assertThat(p.path("fallback").path("classes").toString()).doesNotContain("batch");
        JsonNode d = p.path("deployments").get(0);
        assertThat(d.path("deployment").asText()).isEqualTo("d");
        assertThat(d.path("model").asText()).isEqualTo("gpt-4o-mini");
        assertThat(d.path("kind").asText()).isEqualTo("openai");
        assertThat(d.path("provider_scopes").isArray()).isTrue();
        assertThat(admin("GET", "/admin/profiles", PARTNER, null).statusCode()).isEqualTo(403);
    }

    @Test
    void aDeploymentsStateIsShownToOperatorsNotPartners() throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/deployments/d", READ, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).path("deployment").asText()).isEqualTo("d");
        assertThat(json(r).has("queued")).isTrue();
        assertThat(admin("GET", "/admin/deployments/d", PARTNER, null).statusCode()).isEqualTo(403);
        assertThat(admin("GET", "/admin/deployments/none", READ, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aDeploymentInAFleetShowsEveryReplicaAndTheMergeAdmissionApplies() throws Exception {
        assertThat(json(admin("GET", "/admin/deployments/d", READ, null)).has("fleet")).isFalse();
        gateway.runtime().fleet(new dev.sluice.runtime.FleetPeers() {
            @Override
            public String self() {
                return "r1";
            }

            @Override
            public java.util.List<Peer> peers(String deployment) {
                return java.util.List.of(new Peer("r2", "load_shedding", java.util.Map.of("batch", 2_000_000_000L), 3,
                                new dev.sluice.adapt.FleetAdaptive(dev.sluice.adapt.Mode.LOAD_SHEDDING, true,
                                        java.util.Optional.empty(), 1_500_000_000L)),
                        new Peer("r3", "caution", java.util.Map.of("batch", 500_000_000L), 1,
                                new dev.sluice.adapt.FleetAdaptive(dev.sluice.adapt.Mode.CAUTION, false,
                                        java.util.Optional.of(new dev.sluice.adapt.FleetAdaptive.Probe(250_000_000L, "r3",
                                                "the provider answered 503 (overloaded)")), 4_000_000_000L)));
            }
        });
        try {
            JsonNode fleet = json(admin("GET", "/admin/deployments/d", READ, null)).path("fleet");
            assertThat(fleet.path("replicas")).hasSize(3);
            assertThat(fleet.path("replicas").get(0).path("replica").asText()).isEqualTo("r1");
            assertThat(fleet.path("replicas").get(0).path("self").asBoolean()).isTrue();
            assertThat(fleet.path("replicas").get(1).path("queued_ms").path("batch").asLong()).isEqualTo(2_000);
            assertThat(fleet.path("merged").path("live_replicas").asInt()).isEqualTo(3);
            assertThat(fleet.path("merged").path("mode").asText()).isEqualTo("load_shedding");
            assertThat(fleet.path("merged").path("queued_ms").path("batch").asLong()).isEqualTo(2_500);
            // What each replica published of its adaptive control, and the fleet's merge of it.
            JsonNode self = fleet.path("replicas").get(0);
            assertThat(self.path("shedding").asText()).isEqualTo("none");
            assertThat(self.path("probe").isNull()).isTrue();
            assertThat(self.path("protected_asked_ms_ago").isNull()).isTrue();
            JsonNode r2 = fleet.path("replicas").get(1);
            assertThat(r2.path("shedding").asText()).isEqualTo("deep");
            assertThat(r2.path("protected_asked_ms_ago").asLong()).isEqualTo(1_500);
            JsonNode r3 = fleet.path("replicas").get(2);
            assertThat(r3.path("shedding").asText()).isEqualTo("none");
            assertThat(r3.path("probe").path("holder").asText()).isEqualTo("r3");
            assertThat(r3.path("probe").path("starts_in_ms").asLong()).isEqualTo(250);
            assertThat(r3.path("probe").path("cause").asText()).isEqualTo("the provider answered 503 (overloaded)");
            assertThat(fleet.path("merged").path("shedding").asText()).isEqualTo("deep");
            assertThat(fleet.path("merged").path("probe").path("holder").asText()).isEqualTo("r3");
            assertThat(fleet.path("merged").path("protected_asked_ms_ago").asLong()).isEqualTo(1_500);
            // The OpenAPI document names exactly the fields a replica's entry and the merge carry.
            JsonNode schema = json(admin("GET", "/admin/openapi.json", null, null)).path("paths")
                    .path("/admin/deployments/{deployment}").path("get").path("responses").path("200").path("content")
                    .path("application/json").path("schema").path("properties").path("fleet").path("properties");
            assertThat(names(schema.path("replicas").path("items").path("properties"))).isEqualTo(names(r2));
            assertThat(names(schema.path("merged").path("properties"))).isEqualTo(names(fleet.path("merged")));
        } finally {
            gateway.runtime().fleet(dev.sluice.runtime.FleetPeers.none());
        }
    }

    @Test
    void usageNeedsTheLedger() throws Exception {
        HttpResponse<String> r = admin("GET", "/admin/usage?since=1h", READ, null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(error(r).path("code").asText()).isEqualTo("ledger_off");
    }

    @Test
    void listsArePaged() throws Exception {
        JsonNode page = json(admin("GET", "/admin/keys?limit=1", READ, null));
        assertThat(page.path("items").size()).isEqualTo(1);
        assertThat(page.path("next_offset").asInt()).isEqualTo(1);
        assertThat(admin("GET", "/admin/keys?limit=0", READ, null).statusCode()).isEqualTo(400);
    }

    @Test
    void aTenantWithTeamsIsDeletedOnlyWithCascadeAndItsKeysStopAtOnce() throws Exception {
        assertThat(admin("POST", "/admin/tenants", ADMIN, "{\"id\":\"gone\",\"org\":\"o\"}").statusCode()).isEqualTo(201);
        assertThat(admin("POST", "/admin/tenants/gone/teams", ADMIN, "{\"name\":\"w\"}").statusCode()).isEqualTo(201);
        String secret = json(admin("POST", "/admin/keys", ADMIN, "{\"id\":\"gone-k\",\"tenant\":\"gone\",\"team\":\"w\"}"))
                .path("secret").asText();
        admin("POST", "/admin/pauses", ADMIN, "{\"scope\":\"tenant:gone\",\"reason\":\"setup\"}");
        assertThat(chat(secret).statusCode()).isEqualTo(429);

        HttpResponse<String> refused = admin("DELETE", "/admin/tenants/gone", ADMIN, null);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(error(refused).path("code").asText()).isEqualTo("tenant_has_teams");
        assertThat(error(refused).path("field").asText()).isEqualTo("cascade");
        assertThat(admin("DELETE", "/admin/tenants/gone?cascade=maybe", ADMIN, null).statusCode()).isEqualTo(400);
        assertThat(admin("DELETE", "/admin/tenants/gone", READ, null).statusCode()).isEqualTo(403);
        assertThat(admin("DELETE", "/admin/tenants/gone?cascade=true", PARTNER, null).statusCode()).isEqualTo(403);

        HttpResponse<String> deleted = admin("DELETE", "/admin/tenants/gone?cascade=true", ADMIN, null);
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(json(deleted).path("deleted").asBoolean()).isTrue();
        assertThat(chat(secret).statusCode()).isEqualTo(401);
        assertThat(admin("GET", "/admin/tenants/gone", READ, null).statusCode()).isEqualTo(404);
        assertThat(admin("GET", "/admin/audit?limit=1", READ, null).body()).contains("tenant.delete");
    }

    private static java.util.Set<String> names(JsonNode object) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        object.properties().forEach(e -> out.add(e.getKey()));
        return out;
    }
}
