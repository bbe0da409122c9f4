package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.rollout.RolloutDecision;
import dev.sluice.runtime.rollout.RolloutJson;
import dev.sluice.runtime.rollout.RolloutView;
import dev.sluice.runtime.rollout.Rollouts;
import io.vertx.core.http.HttpMethod;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The rollouts of the configuration ({@code rollouts:}) through the admin API: inspect them, and
 * start, pause, resume, advance or roll back one ([ADMIN.md](ADMIN.md#rollouts)). Each command
 * is a decision like the analysis's, named by the token that made it, and answered with the
 * decision and the rollout after it.
 */
final class RolloutRoutes {

    private final SluiceRuntime runtime;

    private RolloutRoutes(SluiceRuntime runtime) {
        this.runtime = runtime;
    }

    static void install(AdminRouter r, SluiceRuntime runtime) {
        RolloutRoutes m = new RolloutRoutes(runtime);
        r.add(HttpMethod.GET, "/admin/rollouts", Access.READ, m::list);
        r.add(HttpMethod.GET, "/admin/rollouts/{rollout}", Access.READ, m::inspect);
        r.add(HttpMethod.POST, "/admin/rollouts/{rollout}/start", Access.CHANGE, x -> m.command(x, "start"));
        r.add(HttpMethod.POST, "/admin/rollouts/{rollout}/pause", Access.CHANGE, x -> m.command(x, "pause"));
        r.add(HttpMethod.POST, "/admin/rollouts/{rollout}/resume", Access.CHANGE, x -> m.command(x, "resume"));
        r.add(HttpMethod.POST, "/admin/rollouts/{rollout}/advance", Access.CHANGE, x -> m.command(x, "advance"));
        r.add(HttpMethod.POST, "/admin/rollouts/{rollout}/rollback", Access.CHANGE, m::rollback);
    }

    private void list(AdminExchange x) {
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        ArrayNode items = out.putArray("rollouts");
        runtime.rollouts().inspect().forEach(v -> items.add(view(v)));
        x.json(200, out);
    }

    private void inspect(AdminExchange x) {
        found(x).ifPresent(rs -> {
            try {
                x.json(200, view(rs.inspect(x.param("rollout"))));
            } catch (NoSuchElementException e) {
                unknown(x);
            }
        });
    }

    private void command(AdminExchange x, String command) {
        String id = x.param("rollout");
        String by = x.principal().tokenId();
        found(x).ifPresent(rs -> decide(x, rs, () -> switch (command) {
            case "start" -> rs.start(id, by);
            case "pause" -> rs.pause(id, by);
            case "resume" -> rs.resume(id, by);
            default -> rs.advance(id, by);
        }));
    }

    private void rollback(AdminExchange x) {
        String reason = x.jsonBody().map(b -> b.path("reason").asText("")).filter(s -> !s.isBlank())
                .orElse("emergency rollback");
        found(x).ifPresent(rs -> decide(x, rs, () -> rs.rollback(x.param("rollout"), x.principal().tokenId(), reason)));
    }

    private void decide(AdminExchange x, Rollouts rs, java.util.function.Supplier<RolloutDecision> command) {
        RolloutDecision d;
        try {
            d = command.get();
        } catch (NoSuchElementException e) {
            unknown(x);
            return;
        } catch (IllegalStateException e) {
            x.error(409, "rollout_state", e.getMessage() + ".", Optional.empty());
            return;
        }
        ObjectNode out = AdminExchange.JSON.createObjectNode();
        out.set("decision", decision(d));
        out.set("rollout", view(rs.inspect(d.rollout())));
        x.json(200, out);
    }

    private Optional<Rollouts> found(AdminExchange x) {
        return Optional.of(runtime.rollouts());
    }

    private static void unknown(AdminExchange x) {
        x.error(404, "unknown_rollout", "No rollout \"" + x.param("rollout") + "\" is in force.",
                Optional.of("rollout"));
    }

    static ObjectNode view(RolloutView v) {
        ObjectNode n = AdminExchange.JSON.createObjectNode();
        n.put("id", v.id()).put("profile", v.profile()).put("from", v.from()).put("to", v.to())
                .put("status", v.status().wireName()).put("stage", v.stage()).put("stages", v.stages())
                .put("percent", v.percent()).put("listed_percent", v.listedPercent())
                .put("failed_intervals", v.failedIntervals());
        ArrayNode h = n.putArray("history");
        v.history().forEach(d -> h.add(decision(d)));
        return n;
    }

    static ObjectNode decision(RolloutDecision d) {
        return RolloutJson.decision(d);
    }
}
