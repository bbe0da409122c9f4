package dev.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code sluice warmup VERB ...}: a running gateway's warm-ups of scheduled jobs through the admin
 * API ({@code /admin/warmups}), one line per warm-up or decision. The URL, the token and the
 * printing of the API's refusals are {@code sluice admin}'s ({@link AdminCommand#invoke}); the
 * definition's options are read as {@code sluice rollout create}'s.
 */
final class WarmupCommand {

    static final String USAGE = """
            usage: sluice warmup [--url URL] VERB ...   (token in $SLUICE_ADMIN_TOKEN; URL default $SLUICE_ADMIN_URL
                                                         or http://127.0.0.1:8081)
              list                       every warm-up in force: tenant, status, minutes grown, rates in force
              create ID --tenant T --growth rpm=40,tpm=60000 [--start 02:00|on_first_traffic] [--duration 2h]
                     [--initial rpm=12] [--thresholds provider_429_rate=0.01] [--min-requests 10]
                                         a warm-up as the file's warmups: are, checked by the gateway (field paths)
              delete ID                  removes a warm-up, whatever its status: the tenant runs at its limits
              show ID                    one warm-up, then its decisions with the minute's figures
              pause ID | resume ID       holds its rates where they are, or lets them grow again
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    private WarmupCommand() {}

    static int run(String[] argv, PrintStream out, PrintStream err, Function<String, String> env) {
        return AdminCommand.invoke("warmup", USAGE, argv, out, err, env, WarmupCommand::verb);
    }

    private static int verb(AdminCommand.Invocation v) {
        AdminCommand.Client c = v.client();
        return switch (v.verb()) {
            case "list" -> {
                Args.parse(v.options());
                if (!v.positional().isEmpty()) {
                    throw new Args.BadArguments("takes no ID (show ID shows one)");
                }
                yield c.call("GET", "/admin/warmups", null, r -> AdminCommand.lines(r.path("warmups"),
                        WarmupCommand::warmup));
            }
            case "show" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("GET", "/admin/warmups/" + AdminCommand.enc(id), null, WarmupCommand::shown);
            }
            case "pause", "resume" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("POST", "/admin/warmups/" + AdminCommand.enc(id) + "/" + v.verb(), null,
                        r -> r.path("warmup").path("id").asText() + ": " + decision(r.path("decision")));
            }
            case "create" -> {
                Args a = Args.parse(v.options(), "--tenant", "--start", "--duration", "--initial", "--growth",
                        "--thresholds", "--min-requests");
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("POST", "/admin/warmups", definition(id, a), r -> "created " + warmup(r));
            }
            case "delete" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("DELETE", "/admin/warmups/" + AdminCommand.enc(id), null,
                        r -> "deleted " + r.path("id").asText() + "  tenant " + r.path("tenant").asText());
            }
            default -> throw new Args.BadArguments("unknown verb '" + v.verb() + "'");
        };
    }

    /** The body of {@code POST /admin/warmups} from the options, values read as {@link RolloutCommand#definition} reads them. */
    static ObjectNode definition(String id, Args a) {
        ObjectNode body = JSON.createObjectNode().put("id", id);
        a.get("--tenant").ifPresent(t -> body.put("tenant", t));
        a.get("--start").ifPresent(s -> body.put("start", s));
        a.get("--duration").ifPresent(d -> body.put("duration", d));
        a.get("--initial").ifPresent(i -> body.set("initial", RolloutCommand.pairs(i, "--initial")));
        a.get("--growth").ifPresent(g -> body.set("max_growth_per_minute", RolloutCommand.pairs(g, "--growth")));
        a.get("--thresholds").ifPresent(t -> body.set("thresholds", RolloutCommand.pairs(t, "--thresholds")));
        a.get("--min-requests").ifPresent(n -> body.set("min_requests", RolloutCommand.value(n)));
        return body;
    }

    /** {@code nightly  tenant jobs  warming  grown 3 minutes  rpm 132, tpm 180000}. */
    static String warmup(JsonNode w) {
        return w.path("id").asText() + "  tenant " + w.path("tenant").asText() + "  " + w.path("status").asText()
                + "  grown " + w.path("grown_minutes").asInt() + " minutes  " + rates(w.path("rates"));
    }

    private static String shown(JsonNode w) {
        List<String> out = new ArrayList<>();
        out.add(warmup(w));
        w.path("history").forEach(d -> out.add("  " + decision(d)));
        return String.join("\n", out);
    }

    /** {@code 2026-12-03T02:01:00Z  grown by analysis  minute 1  rpm 52: a minute within the threshold (0 provider 429s of 40 attempts)}. */
    static String decision(JsonNode d) {
        return Instant.ofEpochMilli(d.path("at_epoch_ms").asLong()) + "  " + d.path("action").asText() + " by "
                + d.path("by").asText() + "  minute " + d.path("grown_minutes").asInt() + "  " + rates(d.path("rates"))
                + ": " + d.path("reason").asText();
    }

    private static String rates(JsonNode rates) {
        List<String> out = new ArrayList<>();
        rates.properties().forEach(e -> out.add(e.getKey() + " " + e.getValue().asLong()));
        return String.join(", ", out);
    }
}
