package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.config.ConfigException;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.SluiceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a scenario file. The gateway's own configuration keys (deployments, profiles, orgs,
 * classes, store, governor ...) are validated by the gateway's {@link ConfigLoader}, exactly as the
 * gateway would; the simulator's keys ({@code workload}, {@code events}, {@code providers},
 * {@code duration} ...) are read here.
 */
public final class ScenarioLoader {

    static final Set<String> SIM_KEYS = Set.of("name", "description", "duration", "ci_duration", "seed", "replicas", "proxy",
            "providers", "workload", "events", "goals");

    private static final ObjectMapper YAML = new ObjectMapper(
            new YAMLFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION));
    private static final ObjectMapper JSON = new ObjectMapper();

    private ScenarioLoader() {}

    /** Reads {@code file}; the scenario's name defaults to the file name without extension. */
    public static Scenario load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("", "a readable scenario file", file + " (" + e.getClass().getSimpleName() + ")");
        }
        String base = file.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        return parse(text, base);
    }

    /** Parses a scenario; {@code defaultName} names it unless the file has {@code name}. */
    public static Scenario parse(String yaml, String defaultName) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
            throw new ConfigException("", "valid YAML", e.getOriginalMessage() + where);
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException("", "a mapping", "an empty or non-mapping document");
        }
        ObjectNode configPart = ((ObjectNode) root).deepCopy();
        configPart.remove(SIM_KEYS);
        SluiceConfig config;
        try {
            // Credentials are never needed in virtual time: every variable reads as a placeholder.
            config = ConfigLoader.parse(JSON.writeValueAsString(configPart), defaultName, var -> "simulated-" + var);
        } catch (JsonProcessingException e) {
            throw new ConfigException("", "a serialisable document", e.getOriginalMessage());
        }
        YamlNode top = YamlNode.root(root);
        Duration duration = top.get("duration").requiredDuration();
        Duration ci = top.get("ci_duration").duration(duration.compareTo(Duration.ofMinutes(2)) < 0 ? duration
                : Duration.ofMinutes(2));
        Map<String, ProviderSpec> providers = new LinkedHashMap<>();
        YamlNode provNode = top.get("providers");
        for (String id : provNode.entries().keySet()) {
            ConfigException.require(config.deployments().containsKey(id), provNode.get(id).path(),
                    "a configured deployment " + config.deployments().keySet(), id);
        }
        for (DeploymentConfig d : config.deployments().values()) {
            providers.put(d.id(), ProviderSpec.parse(provNode.get(d.id()), d.kind().wireName()));
        }
        List<WorkloadSpec> workload = new ArrayList<>();
        Map<String, KeyConfig> keys = new HashMap<>();
        config.keys().forEach(k -> keys.put(k.id(), k));
        for (YamlNode w : top.get("workload").items()) {
            WorkloadSpec spec;
            try {
                spec = WorkloadSpec.parse(w);
            } catch (ConfigException e) {
                throw e.path().startsWith(w.path()) ? e : e.under(w.path());
            }
            KeyConfig k = keys.get(spec.key());
            ConfigException.require(k != null, w.get("key").path(), "a configured key id", spec.key());
            spec.profile().ifPresent(p -> ConfigException.require(k.profiles().contains(p), w.get("profile").path(),
                    "one of the key's profiles " + k.profiles(), p));
            workload.add(spec);
        }
        List<ScriptedEvent> events = new ArrayList<>();
        for (YamlNode e : top.get("events").items()) {
            ScriptedEvent ev;
            try {
                ev = ScriptedEvent.parse(e);
            } catch (ConfigException x) {
                throw x.path().startsWith(e.path()) ? x : x.under(e.path());
            }
            ConfigException.require(config.deployments().containsKey(ev.deployment()), e.get("deployment").path(),
                    "a configured deployment " + config.deployments().keySet(), ev.deployment());
            events.add(ev);
        }
        return new Scenario(top.get("name").text(defaultName), top.get("description").text("").trim(), duration, ci,
                top.get("seed").longValue(1), (int) top.get("replicas").longValue(1), config, providers, workload,
                events, literalSecrets(root), Goals.parse(top.get("goals")), proxy(top.get("proxy")));
    }

    /** {@code proxy: round_robin | uneven} (round_robin when absent). */
    private static Scenario.Proxy proxy(YamlNode node) {
        String v = node.text("round_robin");
        for (Scenario.Proxy p : Scenario.Proxy.values()) {
            if (p.wireName().equals(v)) {
                return p;
            }
        }
        throw new ConfigException(node.path(), "round_robin or uneven", v);
    }

    /** Literal {@code secret:} values by key id, so end-to-end clients can authenticate. */
    private static Map<String, String> literalSecrets(JsonNode root) {
        Map<String, String> out = new HashMap<>();
        for (JsonNode org : iterable(root.path("orgs"))) {
            for (JsonNode tenant : iterable(org.path("tenants"))) {
                for (JsonNode team : iterable(tenant.path("teams"))) {
                    for (Map.Entry<String, JsonNode> key : team.path("keys").properties()) {
                        JsonNode s = key.getValue().get("secret");
                        if (s != null && s.isTextual()) {
                            out.put(key.getKey(), s.asText());
                        }
                    }
                }
            }
        }
        return out;
    }

    private static Iterable<JsonNode> iterable(JsonNode n) {
        List<JsonNode> out = new ArrayList<>();
        if (n.isObject()) {
            n.properties().forEach(e -> out.add(e.getValue()));
        }
        return out;
    }
}
