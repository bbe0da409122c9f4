package dev.sluice.runtime.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.config.ConfigException;
import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.estimate.OutputReservation;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.estimate.TokenizerChoice;
import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limit;
import dev.sluice.limits.Limits;
import dev.sluice.limits.ShortWindow;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Reads one YAML configuration file into a validated {@link SluiceConfig}. Every problem is a
 * {@link ConfigException} naming the dotted path of the field, what was expected and what was
 * found. Credentials are read from environment variables only; client key secrets are hashed
 * (SHA-256) as they are read and never kept.
 */
public final class ConfigLoader {

    private static final ObjectMapper YAML = new ObjectMapper(
            new YAMLFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION));

    private static final Set<String> TOP = Set.of("server", "store", "ledger", "daily_reset_zone", "governor",
            "classes", "deployments", "profiles", "orgs", "admin", "metrics", "tracing", "rollouts", "warmups",
            "prices", "provider_scopes", "alerts");
    private static final Set<String> PRICE = Set.of("input", "output", "cache_read");
    private static final Set<String> ALERTS = Set.of("evaluate_every", "provider_429_ratio", "provider_429_min_attempts",
            "queue_depth", "bucket_low_fraction", "bucket_low_for", "estimate_drift", "estimate_min_tokens",
            "ramp_stalled_for", "webhook");
    private static final Set<String> WEBHOOK = Set.of("url", "max_queue", "max_attempts", "backoff");
    private static final Set<String> SERVER = Set.of("host", "port", "max_body_bytes", "max_header_bytes",
            "upstream_timeout", "header_timeout", "body_timeout", "idle_timeout", "max_connections",
            "max_connections_per_address", "access_log", "max_answer_bytes", "translation_budget_bytes", "translation_wait",
            "invalid_refunds_per_minute");
    private static final Set<String> STORE = Set.of("kind", "redis_uri", "failure_policy", "replicas");
    private static final Set<String> LEDGER = Set.of("kind", "path", "url", "schema", "user", "password_env",
            "flush_interval", "buffer_size", "batch_size", "retention", "rollup_retention", "rows");
    private static final Set<String> GOVERNOR = Set.of("lease_ttl", "lease_sweep_interval");
    private static final Set<String> CLASS = Set.of("max_queue_wait", "max_queue_length", "deadline", "reserve");
    private static final Set<String> DEPLOYMENT = Set.of("kind", "base_url", "api_key_env", "scope",
            "azure_deployment", "api_version", "limits", "window", "adaptive", "ramp", "failure_policy",
            "capabilities", "provider_scopes");
    private static final Set<String> PROVIDER_SCOPE = Set.of("limits", "window", "names");
    private static final Set<String> CAPABILITIES = Set.of("context_window", "max_output_tokens", "tools",
            "parallel_tools", "json_schema", "vision", "region", "retention", "relative_cost");
    private static final Set<String> FALLBACK = Set.of("classes", "max_cost_ratio", "same_region");
    private static final Set<String> ADAPTIVE = Set.of("enabled", "decrease_factor", "increase_step", "floor",
            "shed_after_refusals", "shed_within", "rate_window", "fault_max", "clean_recovery_after",
            "increase_per_clean_second");
    private static final Set<String> RAMP = Set.of("enabled", "stages", "stage_duration", "min_samples",
            "max_growth_per_minute");
    /** The fields of a profile in a configuration file (and of {@code POST /admin/profiles}). */
    public static final Set<String> PROFILE = Set.of("deployment", "deployments", "routing", "model", "tokenizer",
            "cache_read_counts_against_input_limit", "default_max_output_tokens", "output_reservation", "limits", "task",
            "fallback");
    private static final Set<String> PROFILE_TARGET = Set.of("deployment", "model", "weight");
    private static final Set<String> ORG = Set.of("limits", "tenants");
    private static final Set<String> TENANT = Set.of("weight", "guaranteed", "limits", "teams", "region");
    private static final Set<String> TEAM = Set.of("limits", "keys");
    private static final Set<String> KEY = Set.of("secret_env", "key_sha256", "secret", "profiles", "class",
            "max_class", "deadline", "limits", "paused");
    private static final Set<String> LIMIT = Set.of("amount", "burst", "window");
    private static final Set<String> WINDOW = Set.of("length", "burst");
    private static final Set<String> ADMIN = Set.of("host", "port", "max_body_bytes", "max_requests_per_minute", "tokens",
            "metrics_auth");
    private static final Set<String> METRICS = Set.of("tenant_label", "key_label");
    private static final Set<String> TRACING = Set.of("exporter", "endpoint", "service_name");
    private static final Set<String> ADMIN_TOKEN = Set.of("scope", "token_env", "token_sha256", "token",
            "oversubscription");

    private final String sourceName;
    private final Function<String, String> env;
    private final Secrets secrets = new Secrets();

    private ConfigLoader(String sourceName, Function<String, String> env) {
        this.sourceName = sourceName;
        this.env = env;
    }

    /** Reads and validates {@code file}; environment variables from this process. */
    public static SluiceConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("", "a readable YAML file", file + " (" + e.getClass().getSimpleName() + ")");
        }
        return parse(text, file.toString());
    }

    /** Validates {@code yaml}; environment variables from this process. */
    public static SluiceConfig parse(String yaml, String sourceName) {
        return parse(yaml, sourceName, System::getenv);
    }

    /**
     * Validates {@code yaml}, reading environment variables through {@code env} (which returns null
     * for an unset variable).
     */
    public static SluiceConfig parse(String yaml, String sourceName, Function<String, String> env) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new ConfigException("", "valid YAML", e.getOriginalMessage() + where);
        }
        YamlNode top = YamlNode.root(root);
        if (!top.present()) {
            throw new ConfigException("", "a mapping with deployments and profiles", "an empty document");
        }
        return new ConfigLoader(sourceName, env).config(top.allowOnly(TOP));
    }

    private SluiceConfig config(YamlNode top) {
        ServerSettings server = server(top.get("server"));
        StoreSettings store = store(top.get("store"));
        LedgerSettings ledger = ledger(top.get("ledger"));
        ZoneId zone = zone(top.get("daily_reset_zone"));
        YamlNode gov = top.get("governor").allowOnly(GOVERNOR);
        Duration leaseTtl = positive(gov.get("lease_ttl"), GovernorConfig.DEFAULT_LEASE_TTL);
        Duration sweep = positive(gov.get("lease_sweep_interval"), GovernorConfig.DEFAULT_LEASE_SWEEP);
        Map<TrafficClass, ClassPolicy> classes = classes(top.get("classes"));

        YamlNode deps = top.get("deployments");
        if (!deps.present() || deps.entries().isEmpty()) {
            throw new ConfigException("deployments", "at least one deployment", "none");
        }
        Map<String, ProviderScopeConfig> providerScopes = new LinkedHashMap<>();
        top.get("provider_scopes").entries().forEach((id, n) -> providerScopes.put(id, providerScope(id, n)));
        Map<String, DeploymentConfig> deployments = new LinkedHashMap<>();
        deps.entries().forEach((id, n) -> deployments.put(id, deployment(id, n, providerScopes)));

        YamlNode profs = top.get("profiles");
        if (!profs.present() || profs.entries().isEmpty()) {
            throw new ConfigException("profiles", "at least one model profile", "none");
        }
        Map<String, ProfileConfig> profiles = new LinkedHashMap<>();
        profs.entries().forEach((id, n) -> profiles.put(id, profile(id, n, deployments)));

        Map<String, OrgConfig> orgs = new LinkedHashMap<>();
        Set<String> regions = new java.util.HashSet<>();
        deployments.values().forEach(d -> d.capabilities().region().ifPresent(regions::add));
        Tree tree = new Tree(profiles, regions);
        top.get("orgs").entries().forEach((id, n) -> orgs.put(id, tree.org(id, n)));
        Optional<AdminSettings> admin = top.get("admin").present() ? Optional.of(admin(top.get("admin"), orgs))
                : Optional.empty();
        MetricsSettings metrics = metrics(top.get("metrics"));
        TracingSettings tracing = tracing(top.get("tracing"));
        Prices prices = prices(top.get("prices"));
        AlertSettings alerts = alerts(top.get("alerts"));
        Set<String> tenants = new java.util.HashSet<>();
        orgs.values().forEach(o -> tenants.addAll(o.tenants().keySet()));
        List<RolloutConfig> rollouts = RolloutSection.read(top.get("rollouts"), deployments, profiles, tenants);
        List<WarmupConfig> warmups = WarmupSection.read(top.get("warmups"), orgs);
        SluiceConfig config = new SluiceConfig(sourceName, server, store, ledger, zone, leaseTtl, sweep, classes,
                deployments, profiles, orgs, admin, metrics, tracing, rollouts, prices, providerScopes, alerts, warmups);
        dev.sluice.runtime.rollout.RolloutCompatibility.check(config);
        return config;
    }

    /** {@code prices: {<deployment or model>: {input, output, cache_read}}}, dollars per million tokens. */
    public static Prices prices(YamlNode n) {
        Map<String, Price> out = new LinkedHashMap<>();
        n.entries().forEach((name, v) -> out.put(name, price(v)));
        return new Prices(out);
    }

    /**
     * One price: {@code input} and {@code output} required, {@code cache_read} the input price
     * unless given; each 0 to {@link Price#MAX_PER_MILLION} dollars per million tokens.
     */
    public static Price price(YamlNode v) {
        v.allowOnly(PRICE);
        double in = perMillion(v.get("input"), true, 0);
        double out = perMillion(v.get("output"), true, 0);
        double cache = perMillion(v.get("cache_read"), false, in);
        return new Price(in, out, cache);
    }

    private static double perMillion(YamlNode n, boolean required, double fallback) {
        if (!n.present()) {
            if (required) {
                throw new ConfigException(n.path(), "dollars per million tokens, a number from 0 to "
                        + (long) Price.MAX_PER_MILLION, "nothing");
            }
            return fallback;
        }
        double d = n.requiredDouble();
        if (!(d >= 0 && d <= Price.MAX_PER_MILLION)) {
            throw new ConfigException(n.path(), "dollars per million tokens, a number from 0 to "
                    + (long) Price.MAX_PER_MILLION, Double.toString(d));
        }
        return d;
    }

    /** One entry of {@code provider_scopes:}: a quota shared above one deployment. */
    private static ProviderScopeConfig providerScope(String id, YamlNode n) {
        n.requireObject();
        n.allowOnly(PROVIDER_SCOPE);
        ConfigException.require(ProviderScopeConfig.providerOf(id).isPresent(), n.path(),
                "an id <provider>:<name> with the provider one of " + ProviderScopeConfig.PROVIDERS
                        + " (azure:sub-1/eastus, openai:org-x/project-y)", "\"" + id + "\"");
        Limits limits = withWindow(limits(n.get("limits")), window(n.get("window")));
        ConfigException.require(!limits.isEmpty(), n.get("limits").path(),
                "at least one limit (a shared scope without limits limits nothing)", "none");
        List<String> names = new ArrayList<>();
        for (YamlNode item : n.get("names").items()) {
            String name = item.text();
            ConfigException.require(!name.isBlank() && !names.contains(name), item.path(),
                    "a non-empty identifier not listed before", "\"" + name + "\"");
            names.add(name);
        }
        return new ProviderScopeConfig(id, limits, names);
    }

    /** A deployment's {@code provider_scopes:}: declared scopes of its own provider, each once. */
    private static List<String> memberships(YamlNode n, DeploymentKind kind, Map<String, ProviderScopeConfig> declared) {
        List<String> out = new ArrayList<>();
        for (YamlNode item : n.items()) {
            String id = item.text();
            ConfigException.require(declared.containsKey(id), item.path(),
                    "one of the provider_scopes " + declared.keySet(), "\"" + id + "\"");
            String provider = ProviderScopeConfig.providerOf(id).orElseThrow();
            ConfigException.require(ProviderScopeConfig.covers(provider, kind), item.path(),
                    "a scope of this deployment's provider (kind " + kind.wireName() + ")", "\"" + id + "\"");
            ConfigException.require(!out.contains(id), item.path(), "a provider scope not listed before",
                    "\"" + id + "\"");
            out.add(id);
        }
        return out;
    }

    private static AlertSettings alerts(YamlNode n) {
        n.allowOnly(ALERTS);
        AlertSettings d = AlertSettings.defaults();
        YamlNode w = n.get("webhook");
        w.allowOnly(WEBHOOK);
        Optional<java.net.URI> url = Optional.empty();
        if (w.get("url").present()) {
            try {
                url = Optional.of(java.net.URI.create(w.get("url").text()));
            } catch (IllegalArgumentException x) {
                throw new ConfigException(w.get("url").path(), "an http or https URL", "\"" + w.get("url").text() + "\"");
            }
        }
        Optional<java.net.URI> webhook = url;
        return build(n.path(), () -> new AlertSettings(n.get("evaluate_every").duration(d.evaluateEvery()),
                n.get("provider_429_ratio").doubleValue(d.provider429Ratio()),
                n.get("provider_429_min_attempts").longValue(d.provider429MinAttempts()),
                n.get("queue_depth").intValue(d.queueDepth()),
                n.get("bucket_low_fraction").doubleValue(d.bucketLowFraction()),
                n.get("bucket_low_for").duration(d.bucketLowFor()),
                n.get("estimate_drift").doubleValue(d.estimateDrift()),
                n.get("estimate_min_tokens").longValue(d.estimateMinTokens()),
                n.get("ramp_stalled_for").duration(d.rampStalledFor()), webhook,
                w.get("max_queue").intValue(d.webhookMaxQueue()), w.get("max_attempts").intValue(d.webhookMaxAttempts()),
                w.get("backoff").duration(d.webhookBackoff())));
    }

    private static TracingSettings tracing(YamlNode n) {
        n.allowOnly(TRACING);
        TracingSettings d = TracingSettings.defaults();
        TracingSettings.Exporter exporter = choice(n.get("exporter"), TracingSettings.Exporter.values(), d.exporter());
        YamlNode e = n.get("endpoint");
        java.net.URI endpoint = d.endpoint();
        if (e.present()) {
            try {
                endpoint = java.net.URI.create(e.text());
            } catch (IllegalArgumentException x) {
                throw new ConfigException(e.path(), "an http or https URL", "\"" + e.text() + "\"");
            }
        }
        java.net.URI url = endpoint;
        String service = n.get("service_name").text(d.serviceName());
        return build(n.path(), () -> new TracingSettings(exporter, url, service));
    }

    private static MetricsSettings metrics(YamlNode n) {
        n.allowOnly(METRICS);
        MetricsSettings d = MetricsSettings.defaults();
        return new MetricsSettings(n.get("tenant_label").bool(d.tenantLabel()), n.get("key_label").bool(d.keyLabel()));
    }

    private AdminSettings admin(YamlNode n, Map<String, OrgConfig> orgs) {
        n.allowOnly(ADMIN);
        String host = n.get("host").text(AdminSettings.DEFAULT_HOST);
        int port = n.get("port").intValue(AdminSettings.DEFAULT_PORT);
        long body = n.get("max_body_bytes").longValue(AdminSettings.DEFAULT_MAX_BODY_BYTES);
        AdminSettings.MetricsAuth metricsAuth = choice(n.get("metrics_auth"), AdminSettings.MetricsAuth.values(),
                AdminSettings.DEFAULT_METRICS_AUTH);
        Set<String> subjects = new java.util.HashSet<>(orgs.keySet());
        orgs.values().forEach(o -> subjects.addAll(o.tenants().keySet()));
        Map<String, AdminToken> tokens = new LinkedHashMap<>();
        n.get("tokens").entries().forEach((id, t) -> {
            t.requireObject();
            t.allowOnly(ADMIN_TOKEN);
            String raw = t.get("scope").text();
            AdminScope scope = AdminScope.parse(raw).orElseThrow(() -> new ConfigException(t.get("scope").path(),
                    "admin, read or partner:<org or tenant id>", "\"" + raw + "\""));
            scope.subject().ifPresent(s -> ConfigException.require(subjects.contains(s), t.get("scope").path(),
                    "partner:<one of the organisations and tenants " + new java.util.TreeSet<>(subjects) + ">",
                    "\"" + raw + "\""));
            Secrets.Read read = secrets.read(t, "token_env", "token_sha256", "token",
                    "a secret no other token or client key uses");
            double over = t.get("oversubscription").doubleValue(AdminToken.DEFAULT_OVERSUBSCRIPTION);
            ConfigException.require(over == AdminToken.DEFAULT_OVERSUBSCRIPTION || scope.kind() == AdminScope.Kind.PARTNER,
                    t.get("oversubscription").path(), "no oversubscription: only partner tokens hand out quota", over);
            tokens.put(id, build(t.path(), () -> new AdminToken(id, scope, read.sha256(), read.source(), over)));
        });
        int rate = n.get("max_requests_per_minute").intValue(AdminSettings.DEFAULT_MAX_REQUESTS_PER_MINUTE);
        return build(n.path(), () -> new AdminSettings(host, port, body, tokens, rate, metricsAuth));
    }

    private static ServerSettings server(YamlNode n) {
        n.allowOnly(SERVER);
        ServerSettings d = ServerSettings.defaults();
        String host = n.get("host").text(d.host());
        int port = n.get("port").intValue(d.port());
        long body = n.get("max_body_bytes").longValue(d.maxBodyBytes());
        int header = n.get("max_header_bytes").intValue(d.maxHeaderBytes());
        Duration timeout = n.get("upstream_timeout").duration(d.upstreamTimeout());
        Duration headerTimeout = n.get("header_timeout").duration(d.headerTimeout());
        Duration bodyTimeout = n.get("body_timeout").duration(d.bodyTimeout());
        Duration idleTimeout = n.get("idle_timeout").duration(d.idleTimeout());
        int connections = n.get("max_connections").intValue(d.maxConnections());
        int perAddress = n.get("max_connections_per_address").intValue(d.maxConnectionsPerAddress());
        String accessLog = n.get("access_log").text(d.accessLog());
        long answer = n.get("max_answer_bytes").longValue(d.maxAnswerBytes());
        long budget = n.get("translation_budget_bytes").longValue(Math.max(answer, d.translationBudgetBytes()));
        Duration translationWait = n.get("translation_wait").duration(d.translationWait());
        int refunds = n.get("invalid_refunds_per_minute").intValue(d.invalidRefundsPerMinute());
        return build(n.path(), () -> new ServerSettings(host, port, body, header, timeout, headerTimeout, bodyTimeout,
                idleTimeout, connections, perAddress, accessLog, answer, budget, translationWait, refunds));
    }

    private static StoreSettings store(YamlNode n) {
        n.allowOnly(STORE);
        StoreSettings d = StoreSettings.defaults();
        StoreSettings.Kind kind = choice(n.get("kind"), StoreSettings.Kind.values(), d.kind());
        StoreSettings.FailurePolicy policy = choice(n.get("failure_policy"), StoreSettings.FailurePolicy.values(),
                d.failurePolicy());
        String uri = n.get("redis_uri").text(d.redisUri());
        int replicas = n.get("replicas").intValue(d.replicas());
        return build(n.path(), () -> new StoreSettings(kind, uri, policy, replicas));
    }

    private LedgerSettings ledger(YamlNode n) {
        n.allowOnly(LEDGER);
        LedgerSettings d = LedgerSettings.defaults();
        YamlNode kindNode = n.get("kind");
        // YAML 1.1 reads a bare off as the boolean false; "kind: off" means what it says.
        boolean bareOff = kindNode.json().map(j -> j.isBoolean() && !j.booleanValue()).orElse(false);
        LedgerSettings.Kind kind = bareOff ? LedgerSettings.Kind.OFF
                : choice(kindNode, LedgerSettings.Kind.values(), d.kind());
        Path path = n.get("path").optText().map(Path::of).orElse(d.path());
        Optional<String> url = n.get("url").optText();
        String schema = n.get("schema").text(d.schema());
        Optional<String> user = n.get("user").optText();
        YamlNode pwNode = n.get("password_env");
        Optional<String> passwordEnv = pwNode.optText();
        passwordEnv.ifPresent(v -> ConfigException.require(v.matches("[A-Za-z_][A-Za-z0-9_]*"), pwNode.path(),
                "an environment variable name", "\"" + v + "\""));
        Optional<Secret> password = passwordEnv.map(env).filter(v -> !v.isEmpty()).map(Secret::new);
        Duration flush = n.get("flush_interval").duration(d.flushInterval());
        int buffer = n.get("buffer_size").intValue(d.bufferSize());
        int batch = n.get("batch_size").intValue(d.batchSize());
        Duration retention = n.get("retention").duration(d.retention());
        Duration rollups = n.get("rollup_retention").duration(d.rollupRetention());
        LedgerSettings.Rows rows = choice(n.get("rows"), LedgerSettings.Rows.values(), d.rows());
        return build(n.path(), () -> new LedgerSettings(kind, path, url, schema, user, passwordEnv, password, flush,
                buffer, batch, retention, rollups, rows));
    }

    private static ZoneId zone(YamlNode n) {
        String z = n.text("UTC");
        try {
            return ZoneId.of(z);
        } catch (DateTimeException e) {
            throw new ConfigException(n.path(), "a time zone id such as UTC or America/Los_Angeles", "\"" + z + "\"");
        }
    }

    private static Map<TrafficClass, ClassPolicy> classes(YamlNode n) {
        Map<TrafficClass, ClassPolicy> out = new EnumMap<>(ClassPolicy.defaults());
        n.entries().forEach((name, c) -> {
            TrafficClass tc = TrafficClass.byWireName(name).orElseThrow(() -> new ConfigException(c.path(),
                    "a traffic class, one of " + classNames(), "an unknown class"));
            c.allowOnly(CLASS);
            ClassPolicy def = out.get(tc);
            Duration wait = c.get("max_queue_wait").duration(def.maxQueueWait());
            int length = c.get("max_queue_length").intValue(def.maxQueueLength());
            Optional<Duration> deadline = c.get("deadline").optDuration().or(def::deadline);
            deadline.ifPresent(d -> ConfigException.require(d.isPositive(), c.get("deadline").path(), "> 0", d));
            double reserve = c.get("reserve").doubleValue(def.reserve());
            out.put(tc, build(c.path(), () -> new ClassPolicy(wait, length, deadline, reserve)));
        });
        double reserves = out.values().stream().mapToDouble(ClassPolicy::reserve).sum();
        if (reserves >= 1) {
            throw new ConfigException(n.path(), "class reserves adding up to less than 1", Double.toString(reserves));
        }
        return out;
    }

    private DeploymentConfig deployment(String id, YamlNode n, Map<String, ProviderScopeConfig> providerScopes) {
        n.requireObject();
        n.allowOnly(DEPLOYMENT);
        YamlNode kindNode = n.get("kind");
        String kindName = kindNode.text();
        DeploymentKind kind = DeploymentKind.byWireName(kindName).orElseThrow(() -> new ConfigException(kindNode.path(),
                "one of " + Arrays.stream(DeploymentKind.values()).map(DeploymentKind::wireName).toList(),
                "\"" + kindName + "\""));
        URI base = baseUrl(n.get("base_url"));
        Optional<String> keyEnv = n.get("api_key_env").optText();
        keyEnv.ifPresent(v -> ConfigException.require(v.matches("[A-Za-z_][A-Za-z0-9_]*"), n.get("api_key_env").path(),
                "an environment variable name", "\"" + v + "\""));
        Optional<Secret> key = keyEnv.map(env).filter(v -> !v.isBlank()).map(Secret::new);
        Map<String, String> scope = new LinkedHashMap<>();
        n.get("scope").entries().forEach((k, v) -> scope.put(k, v.text()));
        Optional<String> azureDeployment = n.get("azure_deployment").optText();
        Optional<String> apiVersion = n.get("api_version").optText();
        if (kind == DeploymentKind.AZURE_OPENAI) {
            ConfigException.require(azureDeployment.isPresent(), n.get("azure_deployment").path(),
                    "the Azure deployment name (required for kind azure-openai)", "nothing");
        } else {
            ConfigException.require(azureDeployment.isEmpty(), n.get("azure_deployment").path(),
                    "nothing (only for kind azure-openai)", "\"" + azureDeployment.orElse("") + "\"");
            ConfigException.require(apiVersion.isEmpty(), n.get("api_version").path(),
                    "nothing (only for kind azure-openai)", "\"" + apiVersion.orElse("") + "\"");
        }
        if (kind == DeploymentKind.AZURE_OPENAI && apiVersion.isEmpty()) {
            apiVersion = Optional.of(DeploymentConfig.DEFAULT_AZURE_API_VERSION);
        }
        Limits limits = withWindow(limits(n.get("limits")), window(n.get("window")));
        AdaptiveSettings adaptive = adaptive(n.get("adaptive"));
        RampSettings ramp = ramp(n.get("ramp"));
        Optional<StoreSettings.FailurePolicy> policy = n.get("failure_policy").present()
                ? Optional.of(choice(n.get("failure_policy"), StoreSettings.FailurePolicy.values(), null))
                : Optional.empty();
        Optional<String> av = apiVersion;
        Capabilities capabilities = capabilities(n.get("capabilities"));
        List<String> shared = memberships(n.get("provider_scopes"), kind, providerScopes);
        return build(n.path(), () -> new DeploymentConfig(id, kind, base, keyEnv, key, scope, azureDeployment, av, limits,
                adaptive, ramp, policy, capabilities, shared));
    }

    /** A deployment's {@code capabilities:}; what it leaves out is {@link Capabilities#UNDECLARED}. */
    private static Capabilities capabilities(YamlNode n) {
        n.allowOnly(CAPABILITIES);
        Capabilities d = Capabilities.UNDECLARED;
        OptionalLong context = optPositive(n.get("context_window"));
        OptionalLong maxOut = optPositive(n.get("max_output_tokens"));
        YamlNode retentionNode = n.get("retention");
        Capabilities.Retention retention = retentionNode.present()
                ? Arrays.stream(Capabilities.Retention.values())
                        .filter(r -> r.configName().equals(retentionNode.text())).findFirst()
                        .orElseThrow(() -> new ConfigException(retentionNode.path(), "one of "
                                + Arrays.stream(Capabilities.Retention.values()).map(Capabilities.Retention::configName)
                                        .toList(), "\"" + retentionNode.text() + "\""))
                : d.retention();
        double cost = n.get("relative_cost").doubleValue(d.relativeCost());
        ConfigException.require(cost > 0, n.get("relative_cost").path(), "> 0", cost);
        return new Capabilities(context, maxOut, n.get("tools").bool(d.tools()),
                n.get("parallel_tools").bool(d.parallelTools()), n.get("json_schema").bool(d.jsonSchema()),
                n.get("vision").bool(d.vision()), n.get("region").optText(), retention, cost);
    }

    private static OptionalLong optPositive(YamlNode n) {
        if (!n.present()) {
            return OptionalLong.empty();
        }
        long v = n.longValue(0);
        ConfigException.require(v >= 1, n.path(), ">= 1", v);
        return OptionalLong.of(v);
    }

    /** A profile's {@code fallback:}: the classes that may fall back, a cost bound, whether the region must stay. */
    private static FallbackSettings fallback(YamlNode n, FallbackSettings d) {
        n.allowOnly(FALLBACK);
        Set<TrafficClass> classes = d.classes();
        if (n.get("classes").present()) {
            classes = java.util.EnumSet.noneOf(TrafficClass.class);
            for (YamlNode c : n.get("classes").items()) {
                classes.add(TrafficClass.byWireName(c.text()).orElseThrow(() -> new ConfigException(c.path(),
                        "a traffic class, one of " + classNames(), "\"" + c.text() + "\"")));
            }
        }
        double ratio = unbounds(n, "max_cost_ratio") ? Double.POSITIVE_INFINITY
                : n.get("max_cost_ratio").doubleValue(d.maxCostRatio());
        ConfigException.require(ratio > 0, n.get("max_cost_ratio").path(), "> 0", ratio);
        return new FallbackSettings(classes, ratio, n.get("same_region").bool(d.sameRegion()));
    }

    /**
     * Whether {@code n} gives {@code key} an explicit null: a bound removed ({@code max_cost_ratio:
     * null}), which an absent key (keep what there is) cannot say in a patch.
     */
    private static boolean unbounds(YamlNode n, String key) {
        return n.json().map(j -> j.has(key) && j.get(key).isNull()).orElse(false);
    }

    private static URI baseUrl(YamlNode n) {
        String s = n.text();
        try {
            URI u = new URI(s);
            ConfigException.require(("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
                    && u.getHost() != null && u.getQuery() == null && u.getFragment() == null && u.getUserInfo() == null,
                    n.path(), "an http:// or https:// URL with a host and no query", "\"" + s + "\"");
            return u;
        } catch (java.net.URISyntaxException e) {
            throw new ConfigException(n.path(), "an http:// or https:// URL", "\"" + s + "\"");
        }
    }

    private static AdaptiveSettings adaptive(YamlNode n) {
        n.allowOnly(ADAPTIVE);
        AdaptiveSettings d = AdaptiveSettings.defaults();
        boolean enabled = n.get("enabled").bool(d.enabled());
        double decrease = n.get("decrease_factor").doubleValue(d.decreaseFactor());
        double increase = n.get("increase_step").doubleValue(d.increaseStep());
        double floor = n.get("floor").doubleValue(d.floor());
        int shedAfter = n.get("shed_after_refusals").intValue(d.shedAfterRefusals());
        Duration shedWithin = n.get("shed_within").duration(d.shedWithin());
        Duration rateWindow = n.get("rate_window").duration(d.rateWindow());
        Duration faultMax = n.get("fault_max").duration(d.faultMax());
        Duration cleanAfter = n.get("clean_recovery_after").duration(d.cleanRecoveryAfter());
        double perCleanSecond = n.get("increase_per_clean_second").doubleValue(d.increasePerCleanSecond());
        return build(n.path(), () -> new AdaptiveSettings(enabled, decrease, increase, floor, shedAfter, shedWithin,
                rateWindow, faultMax, cleanAfter, perCleanSecond));
    }

    private static RampSettings ramp(YamlNode n) {
        n.allowOnly(RAMP);
        RampSettings d = RampSettings.defaults();
        List<Double> stages = n.get("stages").present()
                ? n.get("stages").items().stream().map(s -> s.doubleValue(0)).toList()
                : d.stages();
        Duration stageDuration = n.get("stage_duration").duration(d.stageDuration());
        int minSamples = n.get("min_samples").intValue(d.minSamples());
        double growth = n.get("max_growth_per_minute").doubleValue(d.maxGrowthPerMinute());
        // Writing a ramp section without 'enabled' means wanting a ramp.
        boolean enabled = n.get("enabled").bool(n.present());
        return build(n.path(), () -> new RampSettings(enabled, stages, stageDuration, minSamples, growth));
    }

    private static ProfileConfig profile(String id, YamlNode n, Map<String, DeploymentConfig> deployments) {
        n.requireObject();
        n.allowOnly(PROFILE);
        String model = n.get("model").text();
        List<ProfileTarget> targets = targets(n, model, deployments);
        String dep = targets.get(0).deployment();
        DeploymentConfig d = deployments.get(dep);
        ProfileConfig.Routing routing = routing(n.get("routing"), targets);
        YamlNode tokNode = n.get("tokenizer");
        Tokenizer tokenizer = tokNode.present() ? tokenizer(tokNode) : TokenizerChoice.defaultFor(model);
        // Current Anthropic models leave cache reads out of the input-token limit; the others count them.
        boolean cacheCounts = n.get("cache_read_counts_against_input_limit").bool(d.kind() != DeploymentKind.ANTHROPIC);
        long maxOut = n.get("default_max_output_tokens").longValue(dev.sluice.estimate.EstimatorProfile.DEFAULT_MAX_OUTPUT_TOKENS);
        // OpenAI and Azure charge max_tokens against TPM on arrival: reserving less leaves their bucket
        // emptier than ours. Anthropic counts output as produced; Gemini has no output limit.
        YamlNode reservationNode = n.get("output_reservation");
        OutputReservation reservation = reservationNode.present()
                ? OutputReservation.fromConfigName(reservationNode.text()).orElseThrow(() -> new ConfigException(
                        reservationNode.path(), "learned or max_tokens", "\"" + reservationNode.text() + "\""))
                : d.kind() == DeploymentKind.OPENAI || d.kind() == DeploymentKind.AZURE_OPENAI
                        ? OutputReservation.MAX_TOKENS : OutputReservation.LEARNED;
        Limits limits = limits(n.get("limits"));
        YamlNode taskNode = n.get("task");
        ProfileConfig.Task task = taskNode.present()
                ? ProfileConfig.Task.fromConfigName(taskNode.text()).orElseThrow(() -> new ConfigException(
                        taskNode.path(), "chat or embedding", "\"" + taskNode.text() + "\""))
                : ProfileConfig.Task.CHAT;
        FallbackSettings fallback = fallback(n.get("fallback"), FallbackSettings.DEFAULTS);
        return build(n.path(), () -> new ProfileConfig(id, dep, model, tokenizer, cacheCounts, maxOut, reservation,
                limits, task, targets, routing, fallback));
    }

    /**
     * A profile defined by {@code definition}, the fields of a profile in a configuration file,
     * read and checked as the file's are (the admin API's {@code POST /admin/profiles}).
     *
     * @throws ConfigException naming the definition's field path
     */
    public static ProfileConfig profile(String id, JsonNode definition, Map<String, DeploymentConfig> deployments) {
        return profile(id, YamlNode.root(definition), deployments);
    }

    /** The fields of a rollout in a configuration file: what {@code POST /admin/rollouts} takes beside its id. */
    public static final Set<String> ROLLOUT = RolloutSection.ROLLOUT;

    /**
     * A rollout defined by {@code definition}, the fields of a rollout in a configuration file,
     * read and checked as the file's are against {@code config} (the admin API's
     * {@code POST /admin/rollouts}): a known profile, a target among the deployments that the
     * profile's fallback policy allows, steps increasing, thresholds of the right type. Whether
     * another rollout already moves the profile is the caller's to ask.
     *
     * @throws ConfigException naming the definition's field path ({@code steps[1]}, {@code to})
     */
    public static RolloutConfig rollout(String id, JsonNode definition, SluiceConfig config) {
        Set<String> tenants = new java.util.HashSet<>();
        config.orgs().values().forEach(o -> tenants.addAll(o.tenants().keySet()));
        RolloutConfig r = RolloutSection.rollout(id, YamlNode.root(definition), config.deployments(), config.profiles(),
                tenants);
        dev.sluice.runtime.rollout.RolloutCompatibility.check(config, r, "to");
        return r;
    }

    /** The fields of a warm-up in a configuration file: what {@code POST /admin/warmups} takes beside its id. */
    public static final Set<String> WARMUP = WarmupSection.WARMUP;

    /**
     * A warm-up defined by {@code definition}, the fields of a warm-up in a configuration file,
     * read and checked as the file's are against {@code config} (the admin API's
     * {@code POST /admin/warmups}): a configured tenant with a limit in each dimension it grows, a
     * time of day or {@code on_first_traffic}, a duration of 1m to 24h, rates of at least 1, a
     * threshold in [0, 1]. Whether another warm-up already names the tenant is the caller's to ask.
     *
     * @throws ConfigException naming the definition's field path ({@code max_growth_per_minute.rpm}, {@code tenant})
     */
    public static WarmupConfig warmup(String id, JsonNode definition, SluiceConfig config) {
        return WarmupSection.warmup(id, YamlNode.root(definition), config.orgs());
    }

    /** The fields of a profile the admin API changes while running ({@link #patchProfile}). */
    public static final Set<String> PROFILE_ROUTING = Set.of("deployments", "routing", "fallback");

    /**
     * {@code current} with the routing fields {@code patch} names replaced, each read and checked
     * as in a configuration file: {@code deployments} (the whole list, first choice first: ids or
     * {@code deployment}, {@code model}, {@code weight}), {@code routing} ({@code order} or
     * {@code weight}; by default as the file's rule says when the list changes, else unchanged) and
     * {@code fallback} (the fields given replace the current policy's, the others stay; a null
     * {@code max_cost_ratio} removes the cost bound). The rest of the profile stays as it is.
     *
     * @throws ConfigException naming the patch's field path (an unknown deployment, a repeated one, a
     *     value of the wrong type, an unknown field)
     */
    public static ProfileConfig patchProfile(ProfileConfig current, JsonNode patch,
            Map<String, DeploymentConfig> deployments) {
        YamlNode n = YamlNode.root(patch);
        n.requireObject();
        n.allowOnly(PROFILE_ROUTING);
        boolean listed = n.get("deployments").present();
        List<ProfileTarget> targets = listed ? targets(n, current.model(), deployments) : current.targets();
        ProfileConfig.Routing routing = n.get("routing").present() || listed ? routing(n.get("routing"), targets)
                : current.routing();
        FallbackSettings fallback = n.get("fallback").present() ? fallback(n.get("fallback"), current.fallback())
                : current.fallback();
        ProfileTarget first = targets.get(0);
        return build(n.path(), () -> new ProfileConfig(current.id(), first.deployment(), first.model(),
                current.tokenizer(), current.cacheReadCountsAgainstInputLimit(), current.defaultMaxOutputTokens(),
                current.outputReservation(), current.limits(), current.task(), targets, routing, fallback));
    }

    /**
     * A profile's deployments: {@code deployment: a} for one, or {@code deployments:} listing ids
     * or mappings ({@code deployment}, {@code model}, {@code weight}), first choice first. Each is
     * a configured deployment, named once.
     */
    private static List<ProfileTarget> targets(YamlNode n, String model, Map<String, DeploymentConfig> deployments) {
        YamlNode one = n.get("deployment");
        YamlNode many = n.get("deployments");
        ConfigException.require(one.present() != many.present(), one.present() ? many.path() : one.path(),
                "either deployment or deployments", one.present() ? "both" : "neither");
        if (one.present()) {
            return List.of(new ProfileTarget(known(one, deployments), model, 1));
        }
        List<YamlNode> items = many.items();
        ConfigException.require(!items.isEmpty(), many.path(), "at least one deployment", "an empty list");
        List<ProfileTarget> out = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (YamlNode item : items) {
            YamlNode idNode = item.isMapping() ? item.allowOnly(PROFILE_TARGET).get("deployment") : item;
            String id = known(idNode, deployments);
            String other = seen.putIfAbsent(id, idNode.path());
            ConfigException.require(other == null, idNode.path(), "a deployment not listed before",
                    "\"" + id + "\" also at " + other);
            String targetModel = item.isMapping() ? item.get("model").text(model) : model;
            int weight = item.isMapping() ? item.get("weight").intValue(1) : 1;
            ConfigException.require(weight >= 1, item.get("weight").path(), ">= 1", weight);
            out.add(new ProfileTarget(id, targetModel, weight));
        }
        return out;
    }

    private static String known(YamlNode n, Map<String, DeploymentConfig> deployments) {
        String id = n.text();
        ConfigException.require(deployments.containsKey(id), n.path(), "one of the deployments " + deployments.keySet(),
                "\"" + id + "\"");
        return id;
    }

    /** {@code order} or {@code weight}; by default weight when any target names a weight, else order. */
    private static ProfileConfig.Routing routing(YamlNode n, List<ProfileTarget> targets) {
        if (!n.present()) {
            return targets.stream().anyMatch(t -> t.weight() != 1) ? ProfileConfig.Routing.WEIGHT
                    : ProfileConfig.Routing.ORDER;
        }
        return choice(n, ProfileConfig.Routing.values(), null);
    }

    private static Tokenizer tokenizer(YamlNode n) {
        String name = n.text();
        for (Tokenizer t : Tokenizer.values()) {
            if (t.configName().equals(name)) {
                return t;
            }
        }
        throw new ConfigException(n.path(), "one of " + Arrays.stream(Tokenizer.values()).map(Tokenizer::configName)
                .toList(), "\"" + name + "\"");
    }

    /** Builds the key tree, checking ids that must be unique across the whole file. */
    private final class Tree {
        private final Map<String, ProfileConfig> profiles;
        private final Set<String> regions;
        private final Map<String, String> tenantPaths = new HashMap<>();
        private final Map<String, String> keyPaths = new HashMap<>();

        Tree(Map<String, ProfileConfig> profiles, Set<String> regions) {
            this.profiles = profiles;
            this.regions = regions;
        }

        OrgConfig org(String id, YamlNode n) {
            n.requireObject();
            n.allowOnly(ORG);
            Limits limits = limits(n.get("limits"));
            Map<String, TenantConfig> tenants = new LinkedHashMap<>();
            n.get("tenants").entries().forEach((t, tn) -> tenants.put(t, tenant(id, t, tn)));
            return new OrgConfig(id, limits, tenants);
        }

        TenantConfig tenant(String org, String id, YamlNode n) {
            n.requireObject();
            n.allowOnly(TENANT);
            String other = tenantPaths.putIfAbsent(id, n.path());
            ConfigException.require(other == null, n.path(), "a tenant id unique across organisations",
                    "\"" + id + "\" also at " + other);
            ConfigException.require(!id.contains("/"), n.path(), "a tenant id without '/'", "\"" + id + "\"");
            Limits limits = limits(n.get("limits"));
            Limits guaranteed = limits(n.get("guaranteed"));
            double weight = n.get("weight").doubleValue(dev.sluice.governor.ScopeSettings.DEFAULT_WEIGHT);
            // Validate weight and guarantees here, where the path is known.
            build(n.path(), () -> new dev.sluice.governor.ScopeSettings(limits, weight, guaranteed));
            Map<String, TeamConfig> teams = new LinkedHashMap<>();
            n.get("teams").entries().forEach((t, tn) -> teams.put(t, team(org, id, t, tn)));
            Optional<String> region = n.get("region").optText();
            region.ifPresent(r -> ConfigException.require(regions.contains(r), n.get("region").path(),
                    "a region some deployment declares (capabilities.region) " + new java.util.TreeSet<>(regions),
                    "\"" + r + "\""));
            return new TenantConfig(id, weight, guaranteed, limits, teams, region);
        }

        TeamConfig team(String org, String tenant, String name, YamlNode n) {
            n.requireObject();
            n.allowOnly(TEAM);
            Limits limits = limits(n.get("limits"));
            String scopeId = tenant + "/" + name;
            Map<String, KeyConfig> keys = new LinkedHashMap<>();
            n.get("keys").entries().forEach((k, kn) -> keys.put(k, key(org, tenant, scopeId, k, kn)));
            return new TeamConfig(name, scopeId, limits, keys);
        }

        KeyConfig key(String org, String tenant, String team, String id, YamlNode n) {
            n.requireObject();
            n.allowOnly(KEY);
            String other = keyPaths.putIfAbsent(id, n.path());
            ConfigException.require(other == null, n.path(), "a key id unique across the file",
                    "\"" + id + "\" also at " + other);
            Secrets.Read read = secrets.read(n, "secret_env", "key_sha256", "secret", "a secret no other key uses");
            Optional<byte[]> hash = read.sha256();
            String source = read.source();
            List<String> keyProfiles = new ArrayList<>();
            YamlNode pn = n.get("profiles");
            if (pn.present()) {
                for (YamlNode p : pn.items()) {
                    String name = p.text();
                    ConfigException.require(profiles.containsKey(name), p.path(), "one of the profiles "
                            + profiles.keySet(), "\"" + name + "\"");
                    keyProfiles.add(name);
                }
            } else {
                keyProfiles.addAll(profiles.keySet());
            }
            TrafficClass cls = trafficClass(n.get("class"), TrafficClass.INTERACTIVE);
            TrafficClass max = trafficClass(n.get("max_class"), cls);
            ConfigException.require(!cls.outranks(max), n.get("class").path(),
                    "a class no higher than max_class " + max.wireName(), cls.wireName());
            Optional<Duration> deadline = n.get("deadline").optDuration();
            deadline.ifPresent(d -> ConfigException.require(d.isPositive(), n.get("deadline").path(), "> 0", d));
            Limits limits = limits(n.get("limits"));
            boolean paused = n.get("paused").bool(false);
            return new KeyConfig(id, org, tenant, team, hash, source, keyProfiles, cls, max, deadline, limits, paused);
        }
    }

    private static TrafficClass trafficClass(YamlNode n, TrafficClass fallback) {
        if (!n.present()) {
            return fallback;
        }
        String s = n.text();
        return TrafficClass.byWireName(s).orElseThrow(() -> new ConfigException(n.path(), "one of " + classNames(),
                "\"" + s + "\""));
    }

    private static String classNames() {
        return Arrays.stream(TrafficClass.values()).map(TrafficClass::wireName).toList().toString();
    }

    /**
     * A limits mapping: {@code rpm: 500} or {@code rpm: {amount: 500, burst: 50, window: 1s}} per
     * dimension.
     */
    public static Limits limits(YamlNode n) {
        if (!n.present()) {
            return Limits.none();
        }
        Limits.Builder b = Limits.builder();
        n.entries().forEach((name, v) -> {
            Dimension d = Dimension.byLimiterName(name).orElseThrow(() -> new ConfigException(v.path(),
                    "a limiter name, one of " + Arrays.stream(Dimension.values()).map(Dimension::limiterName)
                            .collect(Collectors.toList()), "an unknown key"));
            Limit limit;
            if (v.isMapping()) {
                v.allowOnly(LIMIT);
                long amount = v.get("amount").requiredLong();
                YamlNode burstNode = v.get("burst");
                OptionalLong burst = burstNode.present() ? OptionalLong.of(burstNode.longValue(0)) : OptionalLong.empty();
                Optional<ShortWindow> window = window(v.get("window"));
                limit = build(n.path(), () -> new Limit(d, amount, burst, window));
            } else if (d.money()) {
                long amount = dollarsAsMicros(v);
                limit = build(n.path(), () -> Limit.of(d, amount));
            } else {
                long amount = v.longValue(0);
                limit = build(n.path(), () -> Limit.of(d, amount));
            }
            b.add(limit);
        });
        return b.build();
    }

    /**
     * A money cap in dollars ({@code daily_cost: 25}, {@code monthly_cost: 0.50}), as micro-dollars:
     * more than 0 and at most a million dollars, to the micro-dollar.
     */
    static long dollarsAsMicros(YamlNode v) {
        double usd = v.requiredDouble();
        if (!(usd > 0 && usd <= 1_000_000)) {
            throw new ConfigException(v.path(), "dollars, more than 0 and at most 1000000", Double.toString(usd));
        }
        return Math.max(1, Math.round(usd * Dimension.MICROS_PER_USD));
    }

    /**
     * A provider's short window: {@code window: 500ms} (at the per-minute rate) or
     * {@code window: {length: 500ms, burst: 1.5}}; empty when absent.
     */
    static Optional<ShortWindow> window(YamlNode n) {
        if (!n.present()) {
            return Optional.empty();
        }
        if (!n.isMapping()) {
            Duration length = n.requiredDuration();
            return Optional.of(build(n.path(), () -> ShortWindow.of(length)));
        }
        n.allowOnly(WINDOW);
        Duration length = n.get("length").requiredDuration();
        double burst = n.get("burst").doubleValue(1.0);
        return Optional.of(build(n.path(), () -> new ShortWindow(length, burst)));
    }

    /**
     * A deployment's window given to each of its rates that names neither a window nor a burst of
     * its own: the dimension's setting is the more specific one.
     */
    private static Limits withWindow(Limits limits, Optional<ShortWindow> window) {
        if (window.isEmpty()) {
            return limits;
        }
        Limits out = limits;
        for (Limit l : limits.all()) {
            if (l.dimension().kind() == Dimension.Kind.RATE && l.window().isEmpty() && l.burst().isEmpty()) {
                out = out.with(l.withWindow(window.get()));
            }
        }
        return out;
    }

    private static Duration positive(YamlNode n, Duration fallback) {
        Duration d = n.duration(fallback);
        ConfigException.require(d.isPositive(), n.path(), "> 0", d);
        return d;
    }

    private static <E extends Enum<E>> E choice(YamlNode n, E[] values, E fallback) {
        if (!n.present()) {
            return fallback;
        }
        String s = n.text();
        for (E e : values) {
            if (e.name().equalsIgnoreCase(s.replace('-', '_'))) {
                return e;
            }
        }
        throw new ConfigException(n.path(), "one of " + Arrays.stream(values)
                .map(e -> e.name().toLowerCase(java.util.Locale.ROOT)).toList(), "\"" + s + "\"");
    }

    /** Runs a record constructor, prefixing the path of any problem it reports. */
    private static <T> T build(String path, java.util.function.Supplier<T> constructor) {
        try {
            return constructor.get();
        } catch (ConfigException e) {
            throw e.under(path);
        }
    }

    /**
     * One digest per thread: every request hashes its key, and {@code MessageDigest.getInstance}
     * looks the provider up and instantiates it reflectively each time. {@code digest} resets it.
     */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    });

    /**
     * Reads a secret given as exactly one of an environment variable, a SHA-256 hash or a literal,
     * and keeps only its hash; no two secrets of the file (client keys and admin tokens alike) may
     * be the same, so a client key is never an admin token.
     */
    private final class Secrets {
        private final Map<String, String> byHash = new LinkedHashMap<>();

        /** A secret's hash (empty while its variable is not set) and where it comes from, for messages. */
        record Read(Optional<byte[]> sha256, String source) {}

        Read read(YamlNode n, String envKey, String hashKey, String literalKey, String unique) {
            YamlNode envNode = n.get(envKey);
            YamlNode hashNode = n.get(hashKey);
            YamlNode litNode = n.get(literalKey);
            int given = (envNode.present() ? 1 : 0) + (hashNode.present() ? 1 : 0) + (litNode.present() ? 1 : 0);
            ConfigException.require(given == 1, n.path(), "exactly one of " + envKey + ", " + hashKey + ", "
                    + literalKey, given + " of them");
            Optional<byte[]> hash;
            String source;
            if (envNode.present()) {
                String var = envNode.text();
                ConfigException.require(var.matches("[A-Za-z_][A-Za-z0-9_]*"), envNode.path(),
                        "an environment variable name", "\"" + var + "\"");
                source = envKey + " " + var;
                String value = env.apply(var);
                hash = value == null || value.isBlank() ? Optional.empty() : Optional.of(sha256(value));
            } else if (hashNode.present()) {
                String hex = hashNode.text().toLowerCase(java.util.Locale.ROOT);
                ConfigException.require(hex.matches("[0-9a-f]{64}"), hashNode.path(), "64 hexadecimal digits",
                        hex.length() + " characters");
                source = hashKey;
                hash = Optional.of(HexFormat.of().parseHex(hex));
            } else {
                // The literal is hashed at once; only the hash is kept, and it is never echoed.
                source = literalKey;
                hash = Optional.of(sha256(litNode.text()));
            }
            hash.ifPresent(h -> {
                String prior = byHash.putIfAbsent(HexFormat.of().formatHex(h), n.path());
                ConfigException.require(prior == null, n.path(), unique, "the same secret as " + prior);
            });
            return new Read(hash, source);
        }
    }

    /** SHA-256 of a client key secret, as stored and compared. */
    public static byte[] sha256(String secret) {
        return SHA256.get().digest(secret.getBytes(StandardCharsets.UTF_8));
    }
}
