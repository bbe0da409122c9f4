package dev.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.config.ConfigException;
import dev.sluice.runtime.yaml.YamlNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code sluice admin VERB ...}: the common operations on a running gateway's admin API, one line
 * each (pause, resume, keys, limits, usage, reload). The token comes from the environment
 * ({@code SLUICE_ADMIN_TOKEN}), never the command line, where {@code ps} and shell history would
 * show it; the URL from {@code --url}, {@code SLUICE_ADMIN_URL} or the default admin port.
 */
final class AdminCommand {

    static final String USAGE = """
            usage: sluice admin [--url URL] VERB ...   (token in $SLUICE_ADMIN_TOKEN; URL default $SLUICE_ADMIN_URL
                                                        or http://127.0.0.1:8081)
              pause SCOPE --reason TEXT [--for 30m | --until 2026-12-02T03:00:00Z]
                                         SCOPE: org:ID, tenant:ID, team:TENANT/TEAM, key:ID, profile:ID, deployment:ID
              resume SCOPE
              pauses
              keys [--tenant ID]
              key-create ID --tenant ID --team NAME [--profiles a,b] [--class batch] [--limits rpm=60,tpm=90000]
              key-rotate ID [--overlap 1h]
              key-delete ID
              limits SCOPE rpm=60 tpm=90000 ...   replaces the limits of an org, tenant, team or key
              usage [--since 24h] [--by tenant|key|profile|deployment|class]
              prices                     the price table, dollars per million tokens
              price NAME input=2.50 output=10 [cache_read=1.25]
                                         prices a deployment or model (replaces its entry)
              profiles                   the model profiles, one line each: routing, deployments, fallback policy
              profile ID                 one profile: each deployment with its model, weight, kind, region, scopes
              profile-set ID [--deployments a,b=gpt-4o:3] [--routing order|weight] [--fallback-classes interactive,critical]
                         [--max-cost-ratio 1.5|none] [--same-region true|false]
                                         changes its routing (deployments: ID[=MODEL][:WEIGHT], first choice first)
              reload                     reads the configuration file again (as SIGHUP does)
              explain TRACE_ID [--at INSTANT]
                                         the whole decision of one request (also: sluice explain TRACE_ID);
                                         --at: when it arrived (2026-03-02T10:15:00Z), for a caller's trace
                                         older than an hour that only the ledger holds
              recent [--status rejected|slow|all] [--limit 20]
                                         the newest requests held in memory, one line each
            """;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private AdminCommand() {}

    /** {@code sluice explain [--url URL] TRACE_ID}: {@code sluice admin explain TRACE_ID}. */
    static int explain(String[] argv, PrintStream out, PrintStream err, Function<String, String> env) {
        List<String> words = new ArrayList<>(Arrays.asList(argv));
        int at = words.size() >= 2 && words.get(0).equals("--url") ? 2 : 0;
        words.add(at, "explain");
        return run(words.toArray(String[]::new), out, err, env);
    }

    static int run(String[] argv, PrintStream out, PrintStream err, Function<String, String> env) {
        return invoke("admin", USAGE, argv, out, err, env, AdminCommand::verb);
    }

    /**
     * One verb of an admin API command ({@code sluice admin}, {@code sluice rollout}): the URL and
     * the token resolved once, the verb's positional words and options split, the command's usage
     * on bad arguments (exit 2).
     */
    record Invocation(Client client, String verb, List<String> positional, String[] options) {}

    /** Reads {@code [--url URL] VERB ...}, then runs {@code verbs} on it; the exit status. */
    static int invoke(String command, String usage, String[] argv, PrintStream out, PrintStream err,
            Function<String, String> env, Function<Invocation, Integer> verbs) {
        List<String> words = new ArrayList<>(Arrays.asList(argv));
        String url = env.apply("SLUICE_ADMIN_URL") != null ? env.apply("SLUICE_ADMIN_URL") : "http://127.0.0.1:8081";
        if (words.size() >= 2 && words.get(0).equals("--url")) {
            url = words.get(1);
            words = words.subList(2, words.size());
        }
        if (words.isEmpty() || words.get(0).equals("--help")) {
            (words.isEmpty() ? err : out).print(usage);
            return words.isEmpty() ? 2 : 0;
        }
        String token = env.apply("SLUICE_ADMIN_TOKEN");
        if (token == null || token.isBlank()) {
            err.println("sluice " + command + ": set SLUICE_ADMIN_TOKEN to an admin token (it is never taken from the command line)");
            return 2;
        }
        String verb = words.get(0);
        List<String> positional = new ArrayList<>();
        int i = 1;
        while (i < words.size() && !words.get(i).startsWith("--")) {
            positional.add(words.get(i++));
        }
        String[] options = words.subList(i, words.size()).toArray(String[]::new);
        Client c = new Client(command, url.replaceAll("/+$", ""), token, out, err);
        try {
            return verbs.apply(new Invocation(c, verb, positional, options));
        } catch (Args.BadArguments e) {
            err.println("sluice " + command + " " + verb + ": " + e.getMessage());
            err.print(usage);
            return 2;
        }
    }

    private static int verb(Invocation v) {
        Client c = v.client();
        String verb = v.verb();
        List<String> positional = v.positional();
        String[] options = v.options();
        return switch (verb) {
            case "pause" -> {
                Args a = Args.parse(options, "--reason", "--for", "--until");
                ObjectNode body = JSON.createObjectNode().put("scope", one(positional, "SCOPE"))
                        .put("reason", a.get("--reason").orElseThrow(() -> new Args.BadArguments("--reason TEXT is required")));
                a.get("--for").ifPresent(f -> body.put("for_seconds", duration("--for", f).toSeconds()));
                a.get("--until").ifPresent(u -> body.put("until", u));
                yield c.call("POST", "/admin/pauses", body, r -> "paused " + r.path("scope").asText() + " ("
                        + r.path("reason").asText() + ") until " + (r.path("until").isNull() ? "resumed"
                                : r.path("until").asText()));
            }
            case "resume" -> {
                Args.parse(options);
                yield c.call("DELETE", "/admin/pauses/" + enc(one(positional, "SCOPE")), null,
                        r -> "resumed " + r.path("scope").asText());
            }
            case "pauses" -> c.call("GET", "/admin/pauses", null, r -> lines(r.path("items"), p -> p.path("scope").asText()
                    + "  " + p.path("reason").asText() + "  until " + (p.path("until").isNull() ? "resumed"
                            : p.path("until").asText()) + "  by " + p.path("by").asText()));
            case "keys" -> {
                Args a = Args.parse(options, "--tenant");
                yield c.call("GET", "/admin/keys?limit=500" + a.get("--tenant").map(t -> "&tenant=" + enc(t)).orElse(""),
                        null, r -> lines(r.path("items"), k -> k.path("id").asText() + "  " + k.path("tenant").asText()
                                + "/" + k.path("team").asText() + "  class " + k.path("class").asText() + "  limits "
                                + k.path("limits")));
            }
            case "key-create" -> {
                Args a = Args.parse(options, "--tenant", "--team", "--profiles", "--class", "--limits");
                ObjectNode body = JSON.createObjectNode().put("id", one(positional, "ID"))
                        .put("tenant", a.get("--tenant").orElseThrow(() -> new Args.BadArguments("--tenant ID is required")))
                        .put("team", a.get("--team").orElseThrow(() -> new Args.BadArguments("--team NAME is required")));
                a.get("--profiles").ifPresent(p -> Arrays.stream(p.split(",")).forEach(body.withArray("profiles")::add));
                a.get("--class").ifPresent(k -> body.put("class", k));
                a.get("--limits").ifPresent(l -> body.set("limits", limits(Arrays.asList(l.split(",")))));
                yield c.call("POST", "/admin/keys", body, r -> "created key " + r.path("id").asText() + "\nsecret: "
                        + r.path("secret").asText() + "\n(shown this once: Sluice keeps only its SHA-256)");
            }
            case "key-rotate" -> {
                Args a = Args.parse(options, "--overlap");
                ObjectNode body = JSON.createObjectNode().put("overlap_seconds",
                        a.get("--overlap").map(o -> duration("--overlap", o).toSeconds()).orElse(0L));
                yield c.call("POST", "/admin/keys/" + enc(one(positional, "ID")) + "/rotate", body,
                        r -> "rotated key " + r.path("id").asText() + "\nsecret: " + r.path("secret").asText()
                                + (r.has("old_secret_valid_until") ? "\nthe old secret works until "
                                        + r.path("old_secret_valid_until").asText() : "\nthe old secret no longer works"));
            }
            case "key-delete" -> {
                Args.parse(options);
                yield c.call("DELETE", "/admin/keys/" + enc(one(positional, "ID")), null,
                        r -> "deleted key " + r.path("id").asText());
            }
            case "limits" -> {
                Args.parse(options);
                if (positional.isEmpty()) {
                    throw new Args.BadArguments("SCOPE and at least one limit (rpm=60) are required");
                }
                String path = limitsPath(positional.get(0));
                ObjectNode body = JSON.createObjectNode();
                body.set("limits", limits(positional.subList(1, positional.size())));
                yield c.call("PATCH", path, body, r -> "limits of " + positional.get(0) + ": " + r.path("limits"));
            }
            case "usage" -> {
                Args a = Args.parse(options, "--since", "--by");
                String q = "?since=" + enc(a.get("--since").orElse("24h")) + "&by=" + enc(a.get("--by").orElse("tenant"));
                yield c.call("GET", "/admin/usage" + q, null, r -> "usage by " + r.path("by").asText() + " from "
                        + r.path("from").asText() + " to " + r.path("to").asText() + "\n" + lines(r.path("rows"),
                                u -> (u.path("group").asText().isEmpty() ? "(none)" : u.path("group").asText())
                                        + "  requests " + u.path("requests").asLong() + "  answered "
                                        + u.path("answered").asLong() + "  refused " + u.path("refused_locally").asLong()
                                        + "  input " + u.path("input_tokens").asLong() + "  output "
                                        + u.path("output_tokens").asLong()));
            }
            case "prices" -> {
                Args.parse(options);
                yield c.call("GET", "/admin/prices", null, r -> priceLines(r.path("prices")));
            }
            case "price" -> {
                Args.parse(options);
                if (positional.size() < 2) {
                    throw new Args.BadArguments("NAME and its prices (input=2.50 output=10) are required");
                }
                ObjectNode entry = JSON.createObjectNode();
                for (String p : positional.subList(1, positional.size())) {
                    int eq = p.indexOf('=');
                    try {
                        entry.put(p.substring(0, Math.max(0, eq)), new java.math.BigDecimal(p.substring(eq + 1)));
                    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                        throw new Args.BadArguments("price: '" + p + "' (expected: input=, output= or cache_read= and "
                                + "dollars per million tokens, as input=2.50)");
                    }
                }
                // The API replaces the table whole: read it, change one entry, write it back.
                Optional<JsonNode> table = c.answer("GET", "/admin/prices", null);
                if (table.isEmpty()) {
                    yield 1;
                }
                ObjectNode body = JSON.createObjectNode();
                ObjectNode prices = body.putObject("prices");
                prices.setAll((ObjectNode) table.get().path("prices"));
                prices.set(positional.get(0), entry);
                yield c.call("PUT", "/admin/prices", body, r -> priceLines(r.path("prices")));
            }
            case "reload" -> {
                Args.parse(options);
                yield c.call("POST", "/admin/reload", null, r -> "reloaded " + r.path("reloaded").asText() + " ("
                        + r.path("keys").asInt() + " keys)" + restartNote(r.path("needs_restart")));
            }
            case "explain" -> {
                Args a = Args.parse(options, "--at");
                yield c.call("GET", "/admin/explain/" + enc(one(positional, "TRACE_ID"))
                        + a.get("--at").map(t -> "?at=" + enc(t)).orElse(""), null, AdminCommand::explained);
            }
            case "recent" -> {
                Args a = Args.parse(options, "--status", "--limit");
                yield c.call("GET", "/admin/requests/recent?status=" + enc(a.get("--status").orElse("all")) + "&limit="
                        + enc(a.get("--limit").orElse("20")), null, r -> lines(r.path("items"), q -> q.path("time")
                                .asText() + "  " + q.path("trace_id").asText() + "  " + q.path("tenant").asText("-")
                                + "  " + q.path("status").asInt() + "  " + q.path("reason").asText()));
            }
            case "profiles" -> {
                Args.parse(options);
                yield c.call("GET", "/admin/profiles?limit=500", null, r -> lines(r.path("items"), AdminCommand::profileLine));
            }
            case "profile" -> {
                Args.parse(options);
                yield c.call("GET", "/admin/profiles/" + enc(one(positional, "ID")), null, AdminCommand::profileShown);
            }
            case "profile-set" -> {
                Args a = Args.parse(options, "--deployments", "--routing", "--fallback-classes", "--max-cost-ratio",
                        "--same-region");
                String id = one(positional, "ID");
                ObjectNode body = JSON.createObjectNode();
                a.get("--deployments").ifPresent(d -> Arrays.stream(d.split(",")).forEach(t -> body.withArray("deployments")
                        .add(target(t))));
                a.get("--routing").ifPresent(r -> body.put("routing", r));
                ObjectNode fb = JSON.createObjectNode();
                a.get("--fallback-classes").ifPresent(k -> Arrays.stream(k.split(",")).forEach(fb.withArray("classes")::add));
                a.get("--max-cost-ratio").ifPresent(m -> {
                    if (m.equals("none")) {
                        fb.putNull("max_cost_ratio"); // the bound removed
                    } else {
                        fb.put("max_cost_ratio", number("--max-cost-ratio", m));
                    }
                });
                a.get("--same-region").ifPresent(b -> fb.put("same_region", bool("--same-region", b)));
                if (!fb.isEmpty()) {
                    body.set("fallback", fb);
                }
                if (body.isEmpty()) {
                    throw new Args.BadArguments("nothing to change: give --deployments, --routing or a fallback option");
                }
                yield c.call("PATCH", "/admin/profiles/" + enc(id), body, r -> "profile " + profileLine(r));
            }
            default -> throw new Args.BadArguments("unknown verb '" + verb + "'");
        };
    }

    /** A profile on one line: {@code id  routing order  deployments a, b=gpt-4o:3  fallback ...}. */
    static String profileLine(JsonNode p) {
        List<String> targets = new ArrayList<>();
        for (JsonNode d : p.path("deployments")) {
            targets.add(d.path("deployment").asText() + "=" + d.path("model").asText() + ":" + d.path("weight").asInt());
        }
        JsonNode fb = p.path("fallback");
        List<String> classes = new ArrayList<>();
        fb.path("classes").forEach(k -> classes.add(k.asText()));
        return p.path("id").asText() + "  routing " + p.path("routing").asText() + "  deployments "
                + String.join(", ", targets) + "  fallback " + (classes.isEmpty() ? "(none)" : String.join(",", classes))
                + (fb.has("max_cost_ratio") ? " max_cost_ratio " + fb.path("max_cost_ratio").asText() : "")
                + (fb.path("same_region").asBoolean() ? " same_region" : "");
    }

    /** A profile with one line per deployment. */
    private static String profileShown(JsonNode p) {
        List<String> out = new ArrayList<>();
        out.add(profileLine(p));
        for (JsonNode d : p.path("deployments")) {
            List<String> scopes = new ArrayList<>();
            d.path("provider_scopes").forEach(x -> scopes.add(x.asText()));
            out.add("  " + d.path("deployment").asText() + "  " + d.path("kind").asText() + "  model "
                    + d.path("model").asText() + "  weight " + d.path("weight").asInt() + "  region "
                    + d.path("region").asText("-") + "  scopes " + (scopes.isEmpty() ? "-" : String.join(",", scopes)));
        }
        return String.join("\n", out);
    }

    /** {@code ID[=MODEL][:WEIGHT]} as the API's target: the id alone, or an object. */
    private static JsonNode target(String t) {
        String rest = t.strip();
        Integer weight = null;
        int colon = rest.lastIndexOf(':');
        if (colon > 0) {
            try {
                weight = Integer.parseInt(rest.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new Args.BadArguments("--deployments: '" + t + "' (expected: ID[=MODEL][:WEIGHT], WEIGHT a whole number)");
            }
            rest = rest.substring(0, colon);
        }
        int eq = rest.indexOf('=');
        String id = eq > 0 ? rest.substring(0, eq) : rest;
        if (id.isEmpty()) {
            throw new Args.BadArguments("--deployments: '" + t + "' (expected: ID[=MODEL][:WEIGHT])");
        }
        if (eq < 0 && weight == null) {
            return JSON.getNodeFactory().textNode(id);
        }
        ObjectNode o = JSON.createObjectNode().put("deployment", id);
        if (eq > 0) {
            o.put("model", rest.substring(eq + 1));
        }
        if (weight != null) {
            o.put("weight", weight);
        }
        return o;
    }

    private static double number(String option, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new Args.BadArguments(option + ": '" + v + "' (expected: a number)");
        }
    }

    private static boolean bool(String option, String v) {
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new Args.BadArguments(option + ": '" + v + "' (expected: true or false)");
        };
    }

    /** The explanation as printed: the sentence, then the decision's fields, one per line. */
    static String explained(JsonNode r) {
        List<String> out = new ArrayList<>();
        out.add(r.path("sentence").asText());
        out.add("");
        field(out, "trace", r.path("trace_id").asText() + " at " + r.path("time").asText() + " (from "
                + r.path("source").asText() + ")");
        field(out, "caller", r.path("tenant").isNull() ? "(no known key)" : r.path("org").asText() + " > "
                + r.path("tenant").asText() + " > " + r.path("team").asText() + " > key " + r.path("key_id").asText());
        field(out, "route", text(r, "profile") + " on " + text(r, "deployment") + ", class " + text(r, "class")
                + ", mode " + text(r, "mode"));
        field(out, "answer", r.path("status").asInt() + ", decision " + r.path("decision").asText()
                + (r.path("gateway_decision").isNull() ? "" : ", gateway_decision " + r.path("gateway_decision").asText())
                + (r.path("code").isNull() ? "" : ", code " + r.path("code").asText()));
        JsonNode by = r.path("decided_by");
        field(out, "decided by", by.isNull() || by.isMissingNode() ? "(no limiter)" : by.path("scope").asText() + " "
                + by.path("dimension").asText() + (by.path("window").isNull() ? "" : " (window " + by.path("window").asText()
                        + ")"));
        JsonNode t = r.path("tokens");
        field(out, "tokens", "estimate " + t.path("estimate").path("input").asLong() + " in / "
                + t.path("estimate").path("output").asLong() + " out; actual " + t.path("actual").path("input").asLong()
                + " in / " + t.path("actual").path("output").asLong() + " out"
                + (t.path("actual_reported_by_provider").asBoolean() ? " (provider's report)" : " (Sluice's count)"));
        JsonNode q = r.path("queue");
        field(out, "queue", "waited " + q.path("wait_ms").asLong() + " ms; predicted " + ms(q, "predicted_wait_ms")
                + ", budget " + ms(q, "budget_ms") + (q.path("bound_by").isNull() ? "" : " (set by "
                        + q.path("bound_by").asText() + ")") + ", call " + ms(q, "expected_call_ms"));
        JsonNode i = r.path("involved");
        field(out, "involved", "reserve " + i.path("reserve").asBoolean() + ", pause " + i.path("pause").asBoolean()
                + ", borrowing " + i.path("borrowing").asBoolean() + ", brownout " + i.path("brownout").asBoolean()
                + ", retries " + i.path("retries").asInt() + ", fallback " + i.path("fallback").asBoolean()
                + (i.path("fallback_reason").isNull() ? "" : " (" + i.path("fallback_reason").asText() + ")"));
        for (JsonNode a : r.path("attempts")) {
            field(out, "attempt " + a.path("attempt").asInt(), a.path("deployment").asText() + ": "
                    + a.path("result").asText() + " " + a.path("status").asInt() + " " + a.path("reason").asText()
                    + (a.path("limit_hit").isNull() ? "" : " (" + a.path("limit_hit").asText() + ")") + ", "
                    + a.path("latency_ms").asLong() + " ms, " + a.path("settlement").asText()
                    + (a.has("retried_after_ms") ? ", retried after " + a.path("retried_after_ms").asLong() + " ms" : ""));
        }
        return String.join("\n", out);
    }

    private static void field(List<String> out, String name, String value) {
        out.add(String.format("%-11s %s", name + ":", value));
    }

    private static String text(JsonNode r, String field) {
        return r.path(field).isNull() || r.path(field).isMissingNode() ? "-" : r.path(field).asText();
    }

    private static String ms(JsonNode n, String field) {
        return n.path(field).isNull() || n.path(field).isMissingNode() ? "-" : n.path(field).asLong() + " ms";
    }

    /** The PATCH route of a scope's limits. */
    private static String limitsPath(String scope) {
        int colon = scope.indexOf(':');
        String level = colon > 0 ? scope.substring(0, colon) : "";
        String id = colon > 0 ? scope.substring(colon + 1) : "";
        return switch (level) {
            case "org" -> "/admin/orgs/" + enc(id);
            case "tenant" -> "/admin/tenants/" + enc(id);
            case "key" -> "/admin/keys/" + enc(id);
            case "team" -> {
                int slash = id.indexOf('/');
                if (slash <= 0) {
                    throw new Args.BadArguments("team scope: '" + scope + "' (expected: team:TENANT/TEAM)");
                }
                yield "/admin/tenants/" + enc(id.substring(0, slash)) + "/teams/" + enc(id.substring(slash + 1));
            }
            default -> throw new Args.BadArguments("scope: '" + scope + "' (expected: org:ID, tenant:ID, team:TENANT/TEAM or key:ID)");
        };
    }

    /** {@code rpm=60 tpm=90000} as the API's limits object; the server checks names and values. */
    private static ObjectNode limits(List<String> pairs) {
        ObjectNode n = JSON.createObjectNode();
        for (String p : pairs) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new Args.BadArguments("limit: '" + p + "' (expected: NAME=AMOUNT, as rpm=60)");
            }
            String name = p.substring(0, eq);
            String amount = p.substring(eq + 1);
            boolean money = dev.sluice.limits.Dimension.byLimiterName(name).map(dev.sluice.limits.Dimension::money)
                    .orElse(false);
            try {
                if (money) {
                    // A budget in dollars: daily_cost=25.50, monthly_cost=400.
                    n.put(name, new java.math.BigDecimal(amount));
                } else {
                    n.put(name, Long.parseLong(amount));
                }
            } catch (NumberFormatException e) {
                throw new Args.BadArguments("limit: '" + p + "' (expected: " + (money
                        ? "dollars, as " + name + "=25.50" : "a whole number after '='") + ")");
            }
        }
        return n;
    }

    private static Duration duration(String name, String v) {
        try {
            return YamlNode.parseDuration(name, v);
        } catch (ConfigException e) {
            throw new Args.BadArguments(e.getMessage());
        }
    }

    static String one(List<String> positional, String what) {
        if (positional.size() != 1) {
            throw new Args.BadArguments(what + " is required, once");
        }
        return positional.get(0);
    }

    private static String priceLines(JsonNode prices) {
        List<String> out = new ArrayList<>();
        prices.properties().forEach(e -> out.add(e.getKey() + "  input " + e.getValue().path("input").asDouble()
                + "  output " + e.getValue().path("output").asDouble() + "  cache_read "
                + e.getValue().path("cache_read").asDouble() + "  ($ per million tokens)"));
        return out.isEmpty() ? "(none)" : String.join("\n", out);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String lines(JsonNode items, Function<JsonNode, String> line) {
        if (items.isEmpty()) {
            return "(none)";
        }
        List<String> out = new ArrayList<>();
        items.forEach(n -> out.add(line.apply(n)));
        return String.join("\n", out);
    }

    /**
     * One admin request and its printed answer; an error answer prints the API's own words, with
     * the command's name ({@code sluice admin: 404 ...}), and exits 1.
     */
    record Client(String command, String url, String token, PrintStream out, PrintStream err) {
        int call(String method, String path, JsonNode body, Function<JsonNode, String> shown) {
            Optional<JsonNode> json = answer(method, path, body);
            json.ifPresent(j -> out.println(shown.apply(j)));
            return json.isPresent() ? 0 : 1;
        }

        /** The API's answer, or empty once the error is printed. */
        Optional<JsonNode> answer(String method, String path, JsonNode body) {
            HttpRequest r = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(30))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body.toString()))
                    .header("authorization", "Bearer " + token).header("content-type", "application/json").build();
            HttpResponse<String> resp;
            try {
                resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                err.println("sluice " + command + ": cannot reach " + url + ": " + e.getMessage());
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
            JsonNode json;
            try {
                json = JSON.readTree(resp.body());
            } catch (IOException e) {
                err.println("sluice " + command + ": " + resp.statusCode() + " from " + url + path + " (not JSON)");
                return Optional.empty();
            }
            if (resp.statusCode() >= 300) {
                JsonNode e = json.path("error");
                err.println("sluice " + command + ": " + resp.statusCode() + " " + e.path("code").asText() + ": "
                        + e.path("message").asText() + (e.has("field") ? " [field " + e.path("field").asText() + "]" : ""));
                return Optional.empty();
            }
            return Optional.of(json);
        }
    }

    /** The settings a reload could not put in force, on a line of their own; nothing when there are none. */
    private static String restartNote(JsonNode fields) {
        if (fields.isEmpty()) {
            return "";
        }
        List<String> names = new ArrayList<>();
        fields.forEach(f -> names.add(f.asText()));
        return "\nneeds_restart: " + String.join(", ", names) + " (read only at start, kept as running until a restart)";
    }
}
