package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.alert.AlertMonitor;
import dev.sluice.runtime.alert.Alert;
import dev.sluice.runtime.alert.AlertRules;
import dev.sluice.runtime.config.AdminScope;
import io.vertx.core.http.HttpMethod;
import java.util.Optional;

/**
 * {@code GET /admin/alerts}: the alerts of the gateway's own rules that hold now and the last ones
 * resolved. They are about deployments, which every tenant shares: not a partner's to read.
 */
final class AlertRoutes {

    private AlertRoutes() {}

    static void install(AdminRouter r, AlertRules rules) {
        r.add(HttpMethod.GET, "/admin/alerts", Access.READ, x -> {
            if (x.principal().scope().kind() == AdminScope.Kind.PARTNER) {
                x.error(403, "outside_partner_subtree", "Alerts are about deployments, which every tenant shares: "
                        + "a partner token does not read them.", Optional.empty());
                return;
            }
            ObjectNode out = AdminExchange.JSON.createObjectNode();
            ArrayNode active = out.putArray("active");
            for (Alert a : rules.active()) {
                active.add(AlertMonitor.json(a));
            }
            ArrayNode recent = out.putArray("recent");
            for (Alert a : rules.recent()) {
                recent.add(AlertMonitor.json(a));
            }
            x.json(200, out);
        });
    }
}
