package dev.sluice.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.LedgerJournal;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.config.Price;
import dev.sluice.runtime.config.SluiceConfig;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The price table through the admin API: read by any operator token, replaced whole by an admin
 * one, validated with the field path, audited, and kept in the ledger's database over a restart.
 */
class PricesApiTest {

    static final String YAML = """
            server: { port: 0 }
            admin: { port: 0, tokens: { ops: { scope: admin, token: "sla-prices-admin" }, v: { scope: read, token: "sla-prices-read" } } }
            deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 100 } } }
            profiles: { p: { deployment: d, model: gpt-4o-mini } }
            prices: { gpt-4o-mini: { input: 0.15, output: 0.60 } }
            orgs: { o: { tenants: { acme: { limits: { monthly_cost: 50 }, teams: { x: { keys: { k: { secret: "sk-prices-k" } } } } } } } }
            """;

    @TempDir
    Path dir;

    @Test
    void pricesAreReplacedValidatedAuditedAndKeptOverARestart() throws Exception {
        SluiceConfig config = ConfigLoader.parse(YAML, "prices.yaml", v -> null)
                .withLedger(LedgerSettings.sqlite(dir.resolve("ledger.db")));
        Vertx vertx = Vertx.vertx();
        try {
            Gateway first = start(vertx, config);
            JsonNode shown = AdminCalls.json(AdminCalls.admin(first, "GET", "/admin/prices", "sla-prices-read", null));
            assertThat(shown.path("prices").path("gpt-4o-mini").path("cache_read").asDouble()).isEqualTo(0.15);

            String table = "{\"prices\":{\"gpt-4o-mini\":{\"input\":0.30,\"output\":1.20,\"cache_read\":0.075},"
                    + "\"d\":{\"input\":1,\"output\":2}}}";
            assertThat(AdminCalls.admin(first, "PUT", "/admin/prices", "sla-prices-read", table).statusCode()).isEqualTo(403);
            HttpResponse<String> put = AdminCalls.admin(first, "PUT", "/admin/prices", "sla-prices-admin", table);
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            // The deployment's own entry wins over its model's, at once.
            assertThat(first.runtime().config().prices().of("d", "gpt-4o-mini")).isEqualTo(new Price(1, 2, 1));

            HttpResponse<String> negative = AdminCalls.admin(first, "PUT", "/admin/prices", "sla-prices-admin",
                    "{\"prices\":{\"gpt-4o-mini\":{\"input\":-1,\"output\":1}}}");
            assertThat(negative.statusCode()).isEqualTo(422);
            assertThat(AdminCalls.json(negative).path("error").path("field").asText()).isEqualTo("prices.gpt-4o-mini.input");
            HttpResponse<String> unknown = AdminCalls.admin(first, "PUT", "/admin/prices", "sla-prices-admin",
                    "{\"prices\":{\"gpt-4o-mini\":{\"input\":1,\"output\":1,\"cached\":1}}}");
            assertThat(unknown.statusCode()).isEqualTo(422);
            assertThat(AdminCalls.json(unknown).path("error").path("field").asText()).isEqualTo("prices.gpt-4o-mini.cached");
            HttpResponse<String> notATable = AdminCalls.admin(first, "PUT", "/admin/prices", "sla-prices-admin",
                    "{\"prices\":[]}");
            assertThat(notATable.statusCode()).isEqualTo(422);
            assertThat(AdminCalls.json(notATable).path("error").path("field").asText()).isEqualTo("prices");
            assertThat(first.runtime().config().prices().of("x", "gpt-4o-mini")).isEqualTo(new Price(0.30, 1.20, 0.075));

            JsonNode audit = AdminCalls.json(AdminCalls.admin(first, "GET", "/admin/audit", "sla-prices-admin", null))
                    .path("items");
            assertThat(audit.size()).isEqualTo(1);
            assertThat(audit.get(0).path("action").asText()).isEqualTo("prices.set");
            assertThat(audit.get(0).path("token_id").asText()).isEqualTo("ops");
            assertThat(audit.get(0).toString()).contains("0.15").contains("0.3");
            AdminCalls.stop(first);

            Gateway second = start(vertx, config);
            assertThat(second.runtime().config().prices().of("x", "gpt-4o-mini")).isEqualTo(new Price(0.30, 1.20, 0.075));
            assertThat(second.runtime().config().prices().of("d", "gpt-4o-mini")).isEqualTo(new Price(1, 2, 1));
            AdminCalls.stop(second);
        } finally {
            AdminCalls.close(vertx);
        }
    }

    private static Gateway start(Vertx vertx, SluiceConfig config) throws Exception {
        return AdminCalls.start(vertx, config, LedgerJournal.open(config.ledger()));
    }
}
