package dev.sluice.runtime.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.OrgConfig;
import dev.sluice.runtime.config.TeamConfig;
import dev.sluice.runtime.config.TenantConfig;
import dev.sluice.runtime.yaml.YamlNode;
import java.util.HexFormat;

/**
 * The JSON form of the key tree's parts, as the admin API shows them, the audit trail records
 * them and the journal replays them: limits as in the configuration file ({@code rpm: 500} or
 * {@code rpm: {amount, burst}}). A key's secret hash is written only into the journal's state.
 */
public final class ControlJson {

    /** One mapper: thread-safe once configured. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private ControlJson() {}

    public static ObjectNode limits(Limits limits) {
        ObjectNode n = JSON.createObjectNode();
        for (Limit l : limits.all()) {
            if (l.dimension().money()) {
                // Dollars, as written in the file.
                n.put(l.dimension().limiterName(), java.math.BigDecimal.valueOf(l.amount(), 6).stripTrailingZeros());
            } else if (l.burst().isPresent()) {
                n.putObject(l.dimension().limiterName()).put("amount", l.amount()).put("burst", l.burst().getAsLong());
            } else {
                n.put(l.dimension().limiterName(), l.amount());
            }
        }
        return n;
    }

    /** The price table as in the file: per name, dollars per million input, output and cache-read tokens. */
    public static ObjectNode prices(dev.sluice.runtime.config.Prices prices) {
        ObjectNode n = JSON.createObjectNode();
        prices.byName().forEach((name, p) -> n.putObject(name).put("input", p.inputPerMillion())
                .put("output", p.outputPerMillion()).put("cache_read", p.cacheReadPerMillion()));
        return n;
    }

    /** Reads a price table written as in the file; a {@link dev.sluice.config.ConfigException} names the path. */
    public static dev.sluice.runtime.config.Prices prices(JsonNode n, String path) {
        if (n == null || !n.isObject()) {
            throw new dev.sluice.config.ConfigException(path, "an object of prices by deployment or model name",
                    n == null ? "nothing" : n.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        YamlNode root = YamlNode.root(JSON.createObjectNode().set(path, n));
        return ConfigLoader.prices(root.get(path));
    }

    /** Reads limits written as in the file; a {@link dev.sluice.config.ConfigException} names the path. */
    public static Limits limits(JsonNode n, String path) {
        YamlNode root = YamlNode.root(JSON.createObjectNode().set(path, n));
        return ConfigLoader.limits(root.get(path));
    }

    /**
     * A model profile as the admin API shows it: {@code id}, {@code model}, {@code routing},
     * {@code fallback} ({@code classes}, {@code max_cost_ratio} when bounded, {@code same_region}) and
     * its {@code deployments} in order, each with its provider {@code model}, {@code weight},
     * {@code kind}, {@code region} (when declared) and the {@code provider_scopes} it is under.
     */
    public static ObjectNode profile(dev.sluice.runtime.config.ProfileConfig p, dev.sluice.runtime.config.SluiceConfig c) {
        ObjectNode n = profileRouting(p);
        ObjectNode out = JSON.createObjectNode().put("id", p.id()).put("model", p.model());
        out.setAll(n);
        ArrayNode targets = out.putArray("deployments");
        for (var t : p.targets()) {
            var d = c.deployments().get(t.deployment());
            ObjectNode dn = targets.addObject().put("deployment", t.deployment()).put("model", t.model())
                    .put("weight", t.weight()).put("kind", d.kind().wireName());
            d.capabilities().region().ifPresent(r -> dn.put("region", r));
            ArrayNode scopes = dn.putArray("provider_scopes");
            d.providerScopes().forEach(scopes::add);
        }
        return out;
    }

    /**
     * The routing fields of a profile ({@code deployments}, {@code routing}, {@code fallback}) in the
     * form {@code PATCH /admin/profiles/{id}} takes, and so the state its change replays.
     */
    public static ObjectNode profileRouting(dev.sluice.runtime.config.ProfileConfig p) {
        ObjectNode n = JSON.createObjectNode();
        n.put("routing", p.routing().configName());
        ObjectNode fb = n.putObject("fallback");
        ArrayNode classes = fb.putArray("classes");
        p.fallback().classes().stream().sorted().forEach(k -> classes.add(k.wireName()));
        if (Double.isFinite(p.fallback().maxCostRatio())) {
            fb.put("max_cost_ratio", p.fallback().maxCostRatio());
        }
        fb.put("same_region", p.fallback().sameRegion());
        ArrayNode targets = n.putArray("deployments");
        for (var t : p.targets()) {
            targets.addObject().put("deployment", t.deployment()).put("model", t.model()).put("weight", t.weight());
        }
        return n;
    }

    public static ObjectNode org(OrgConfig o) {
        ObjectNode n = JSON.createObjectNode().put("id", o.id());
        n.set("limits", limits(o.limits()));
        ArrayNode tenants = n.putArray("tenants");
        o.tenants().keySet().forEach(tenants::add);
        return n;
    }

    public static ObjectNode tenant(String org, TenantConfig t) {
        ObjectNode n = JSON.createObjectNode().put("id", t.id()).put("org", org).put("weight", t.weight());
        n.set("guaranteed", limits(t.guaranteed()));
        n.set("limits", limits(t.limits()));
        ArrayNode teams = n.putArray("teams");
        t.teams().keySet().forEach(teams::add);
        return n;
    }

    public static ObjectNode team(String tenant, TeamConfig t) {
        ObjectNode n = JSON.createObjectNode().put("tenant", tenant).put("name", t.name()).put("scope", "team:"
                + t.scopeId());
        n.set("limits", limits(t.limits()));
        ArrayNode keys = n.putArray("keys");
        t.keys().keySet().forEach(keys::add);
        return n;
    }

    /** A key as shown: never its secret, never its hash. */
    public static ObjectNode key(KeyConfig k) {
        ObjectNode n = JSON.createObjectNode().put("id", k.id()).put("org", k.org()).put("tenant", k.tenant())
                .put("team", k.team().substring(k.tenant().length() + 1));
        ArrayNode profiles = n.putArray("profiles");
        k.profiles().forEach(profiles::add);
        n.put("class", k.trafficClass().wireName()).put("max_class", k.maxClass().wireName());
        k.deadline().ifPresent(d -> n.put("deadline_ms", d.toMillis()));
        n.set("limits", limits(k.limits()));
        n.put("secret_source", k.secretSource());
        return n;
    }

    /** A key as the journal replays it: with its secret's hash. */
    static ObjectNode keyState(KeyConfig k) {
        ObjectNode n = key(k);
        k.secretSha256().ifPresent(h -> n.put("sha256", HexFormat.of().formatHex(h)));
        return n;
    }

    public static ObjectNode pause(Pause p) {
        ObjectNode n = JSON.createObjectNode().put("scope", p.scope().key()).put("reason", p.reason());
        p.until().ifPresentOrElse(u -> n.put("until", u.toString()), () -> n.putNull("until"));
        return n.put("by", p.by()).put("at", p.at().toString());
    }

    static String text(JsonNode n) {
        return n == null ? "null" : n.toString();
    }
}
