package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.rollout.WarmupDecision;
import dev.sluice.runtime.rollout.WarmupJson;
import dev.sluice.runtime.rollout.Warmups;
import io.vertx.core.http.HttpMethod;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The scheduled jobs' warm-ups (the file's {@code warmups:} and those created through the API, in
 * {@code ManagementRoutes}) through the admin API: inspect them, and pause or resume one's growth ([ADMIN.md](ADMIN.md#warm-ups)). Each command is a decision like the
 * analysis's, named by the token that made it.
 */
final class WarmupRoutes {

    private final Warmups warmups;

    private WarmupRoutes(Warmups warmups) {
        this.warmups = warmups;
    }

    static void install(AdminRouter r, SluiceRuntime runtime) {
        WarmupRoutes m = new WarmupRoutes(runtime.warmups());
        r.add(HttpMethod.GET, "/admin/warmups", Access.READ, m::list);
        r.add(HttpMethod.GET, "/admin/warmups/{warmup}", Access.READ, m::inspect);
        r.add(HttpMethod.POST, "/admin/warmups/{warmup}/pause", Access.CHANGE,
                x -> m.decide(x, () -> m.warmups.pause(x.param("warmup"), x.principal().tokenId())));
        r.add(HttpMethod.POST, "/admin/warmups/{warmup}/resume", Access.CHANGE,
                x -> m.decide(x, () -> m.warmups.resume(x.param("warmup"), x.principal().tokenId())));
    }

    private void list(AdminExchange x) {
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        ArrayNode items = out.putArray("warmups");
        warmups.inspect().forEach(v -> items.add(view(v)));
        x.json(200, out);
    }

    private void inspect(AdminExchange x) {
        try {
            x.json(200, view(warmups.inspect(x.param("warmup"))));
        } catch (NoSuchElementException e) {
            unknown(x);
        }
    }

    private void decide(AdminExchange x, Supplier<WarmupDecision> command) {
        WarmupDecision d;
        try {
            d = command.get();
        } catch (NoSuchElementException e) {
            unknown(x);
            return;
        } catch (IllegalStateException e) {
            x.error(409, "warmup_state", e.getMessage() + ".", Optional.empty());
            return;
        }
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        out.set("decision", decision(d));
        out.set("warmup", view(warmups.inspect(d.warmup())));
        x.json(200, out);
    }

    private static void unknown(AdminExchange x) {
        x.error(404, "unknown_warmup", "No warm-up \"" + x.param("warmup") + "\" is configured.", Optional.of("warmup"));
    }

    static ObjectNode view(Warmups.View v) {
        ObjectNode n = AdminExchange.JSON.createObjectNode();
        n.put("id", v.id()).put("tenant", v.tenant()).put("status", v.status().wireName()).put("grown_minutes", v.grown());
        ObjectNode rates = n.putObject("rates");
        v.rates().forEach((d, r) -> rates.put(d.limiterName(), r));
        ArrayNode h = n.putArray("history");
        v.history().forEach(d -> h.add(decision(d)));
        return n;
    }

    static ObjectNode decision(WarmupDecision d) {
        return WarmupJson.decision(d);
    }
}
