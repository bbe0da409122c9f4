package dev.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code sluice rollout VERB ...}: a running gateway's configured rollouts through the admin API
 * ({@code /admin/rollouts}), one line per rollout or decision. The URL, the token and the printing
 * of the API's refusals are {@code sluice admin}'s ({@link AdminCommand#invoke}).
 */
final class RolloutCommand {

    static final String USAGE = """
            usage: sluice rollout [--url URL] VERB ...   (token in $SLUICE_ADMIN_TOKEN; URL default $SLUICE_ADMIN_URL
                                                          or http://127.0.0.1:8081)
              list                       every rollout in force: status, stage, the target's share
              create ID --profile P --to D --steps 1,5,25,100 [--interval 5m] [--sticky tenant|key]
                     [--tenants-first a,b] [--growth rpm=120,tpm=200000] [--min-requests 20]
                     [--thresholds provider_429_rate=0.005,p95_latency=2s] [--rollback-after 2]
                     [--start immediately|on_command]
                                         a rollout as the file's rollouts: are, checked by the gateway (field paths)
              delete ID                  removes a rollout, whatever its status: the profile routes as configured
              show ID                    one rollout, then its decisions with the figures that drove them
              start ID | pause ID | resume ID | advance ID
              rollback ID [--reason TEXT]
                                         the emergency rollback: the profile's traffic back to the source at once
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    private RolloutCommand() {}

    static int run(String[] argv, PrintStream out, PrintStream err, Function<String, String> env) {
        return AdminCommand.invoke("rollout", USAGE, argv, out, err, env, RolloutCommand::verb);
    }

    private static int verb(AdminCommand.Invocation v) {
        AdminCommand.Client c = v.client();
        return switch (v.verb()) {
            case "list" -> {
                Args.parse(v.options());
                if (!v.positional().isEmpty()) {
                    throw new Args.BadArguments("takes no ID (show ID shows one)");
                }
                yield c.call("GET", "/admin/rollouts", null, r -> AdminCommand.lines(r.path("rollouts"),
                        RolloutCommand::rollout));
            }
            case "show" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("GET", "/admin/rollouts/" + AdminCommand.enc(id), null, RolloutCommand::shown);
            }
            case "start", "pause", "resume", "advance" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("POST", "/admin/rollouts/" + AdminCommand.enc(id) + "/" + v.verb(), null,
                        RolloutCommand::commanded);
            }
            case "create" -> {
                Args a = Args.parse(v.options(), "--profile", "--to", "--from", "--steps", "--interval", "--sticky",
                        "--tenants-first", "--growth", "--thresholds", "--min-requests", "--rollback-after", "--start");
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("POST", "/admin/rollouts", definition(id, a), r -> "created " + rollout(r));
            }
            case "delete" -> {
                Args.parse(v.options());
                String id = AdminCommand.one(v.positional(), "ID");
                yield c.call("DELETE", "/admin/rollouts/" + AdminCommand.enc(id), null,
                        r -> "deleted " + r.path("id").asText() + "  " + r.path("profile").asText() + ": "
                                + r.path("from").asText() + " -> " + r.path("to").asText());
            }
            case "rollback" -> {
                Args a = Args.parse(v.options(), "--reason");
                String id = AdminCommand.one(v.positional(), "ID");
                ObjectNode body = JSON.createObjectNode();
                a.get("--reason").ifPresent(reason -> body.put("reason", reason));
                yield c.call("POST", "/admin/rollouts/" + AdminCommand.enc(id) + "/rollback", body,
                        RolloutCommand::commanded);
            }
            default -> throw new Args.BadArguments("unknown verb '" + v.verb() + "'");
        };
    }

    /**
     * The body of {@code POST /admin/rollouts} from the options: numbers where they read as numbers,
     * the text otherwise, so that the gateway names the field of a bad value as the file's check does.
     */
    static ObjectNode definition(String id, Args a) {
        ObjectNode body = JSON.createObjectNode().put("id", id);
        a.get("--profile").ifPresent(p -> body.put("profile", p));
        a.get("--from").ifPresent(p -> body.put("from", p));
        a.get("--to").ifPresent(p -> body.put("to", p));
        a.get("--steps").ifPresent(steps -> {
            var list = body.putArray("steps");
            for (String s : steps.split(",")) {
                list.add(value(s.trim()));
            }
        });
        a.get("--interval").ifPresent(p -> body.put("interval", p));
        a.get("--sticky").ifPresent(p -> body.put("sticky", p));
        a.get("--tenants-first").ifPresent(t -> {
            var list = body.putArray("tenants_first");
            for (String s : t.split(",")) {
                list.add(s.trim());
            }
        });
        a.get("--growth").ifPresent(g -> body.set("max_growth_per_minute", pairs(g, "--growth")));
        a.get("--thresholds").ifPresent(t -> body.set("thresholds", pairs(t, "--thresholds")));
        a.get("--min-requests").ifPresent(n -> body.set("min_requests", value(n)));
        a.get("--rollback-after").ifPresent(n -> body.set("rollback_after", value(n)));
        a.get("--start").ifPresent(p -> body.put("start", p));
        return body;
    }

    /** {@code rpm=60,tpm=9000} as an object, the values read by {@link #value}. */
    static ObjectNode pairs(String text, String option) {
        ObjectNode out = JSON.createObjectNode();
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new Args.BadArguments(option + " " + text + " (expected: name=value,...)");
            }
            out.set(pair.substring(0, eq).trim(), value(pair.substring(eq + 1).trim()));
        }
        return out;
    }

    /** A number where the text reads as one, the text otherwise: the gateway names the field of a bad value. */
    static JsonNode value(String text) {
        try {
            BigDecimal n = new BigDecimal(text);
            return n.scale() <= 0 ? JSON.getNodeFactory().numberNode(n.longValueExact())
                    : JSON.getNodeFactory().numberNode(n.doubleValue());
        } catch (NumberFormatException | ArithmeticException notANumber) {
            return JSON.getNodeFactory().textNode(text);
        }
    }

    /** {@code move  p: old -> new  running  stage 0 of 3  10%}, the listed tenants' share when it differs. */
    static String rollout(JsonNode r) {
        double percent = r.path("percent").asDouble();
        double listed = r.path("listed_percent").asDouble();
        return r.path("id").asText() + "  " + r.path("profile").asText() + ": " + r.path("from").asText() + " -> "
                + r.path("to").asText() + "  " + r.path("status").asText() + "  stage " + r.path("stage").asInt()
                + " of " + r.path("stages").asInt() + "  " + percent(percent) + "%"
                + (listed != percent ? " (tenants listed first " + percent(listed) + "%)" : "")
                + "  failed intervals " + r.path("failed_intervals").asInt();
    }

    /** The rollout's line, then one line per decision of its history, oldest first. */
    private static String shown(JsonNode r) {
        List<String> out = new ArrayList<>();
        out.add(rollout(r));
        r.path("history").forEach(d -> out.add("  " + decision(d)));
        return String.join("\n", out);
    }

    /** A command's answer: what it decided, on which rollout. */
    private static String commanded(JsonNode r) {
        return r.path("rollout").path("id").asText() + ": " + decision(r.path("decision"));
    }

    /**
     * {@code 2026-12-02T06:00:00Z  advanced by analysis  stage 0 -> 1  50%: reason  [attempts 120, ...]},
     * the figures only for the analysis's decisions.
     */
    static String decision(JsonNode d) {
        JsonNode f = d.path("figures");
        return Instant.ofEpochMilli(d.path("at_epoch_ms").asLong()) + "  " + d.path("action").asText() + " by "
                + d.path("by").asText() + "  stage " + d.path("stage_before").asInt() + " -> "
                + d.path("stage_after").asInt() + "  " + percent(d.path("percent_after").asDouble()) + "%: "
                + d.path("reason").asText() + (f.isObject() ? "  [" + figures(f) + "]" : "");
    }

    private static String figures(JsonNode f) {
        return "attempts " + f.path("attempts").asLong() + ", 429s " + f.path("throttled").asLong() + " ("
                + percent(100 * f.path("provider_429_rate").asDouble()) + "%), failed " + f.path("failed").asLong()
                + ", requests " + f.path("requests").asLong() + ", fell back " + f.path("fell_back").asLong()
                + (f.has("p95_latency_ms") ? ", p95 latency " + f.path("p95_latency_ms").asLong() + " ms" : "")
                + (f.has("p95_ttft_ms") ? ", p95 ttft " + f.path("p95_ttft_ms").asLong() + " ms" : "")
                + (f.has("p95_queue_wait_ms") ? ", p95 queue wait " + f.path("p95_queue_wait_ms").asLong() + " ms" : "")
                + ", estimate error " + percent(100 * f.path("estimate_error").asDouble()) + "%";
    }

    /** 10, 2.5, 0.33: at most two decimals, no trailing zeros. */
    private static String percent(double p) {
        return BigDecimal.valueOf(p).setScale(2, java.math.RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
