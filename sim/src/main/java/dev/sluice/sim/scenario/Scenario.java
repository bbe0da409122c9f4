package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigException;
import dev.sluice.runtime.config.SluiceConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A workload to simulate: the gateway configuration it runs under (the same schema the gateway
 * loads), the simulated providers behind its deployments, the clients and what they send, scripted
 * events, and how long and on how many gateway replicas it runs.
 *
 * @param name short name, from the file name unless given
 * @param description what the scenario tests, one paragraph
 * @param duration how long clients send requests; the run then drains what is in flight
 * @param ciDuration the length of the short form used in CI
 * @param seed default seed
 * @param replicas gateway replicas; each has its own governor (and its own in-memory store unless
 *     {@code store.kind} is {@code redis}, which the simulator models as one shared store)
 * @param config the gateway configuration part of the file
 * @param providers the simulated provider behind each deployment, by deployment id
 * @param workload the client streams
 * @param events scripted events, in file order
 * @param secrets literal key secrets by key id, for the end-to-end mode's clients
 * @param goals what {@code sluice} must achieve here
 * @param proxy how the load balancer in front of several replicas spreads arrivals over them
 */
public record Scenario(String name, String description, Duration duration, Duration ciDuration, long seed,
        int replicas, SluiceConfig config, Map<String, ProviderSpec> providers, List<WorkloadSpec> workload,
        List<ScriptedEvent> events, Map<String, String> secrets, Goals goals, Proxy proxy) {

    /** How arrivals are spread over the replicas. */
    public enum Proxy {
        /** In turn: replica 0, 1, 2, 0, ... */
        ROUND_ROBIN,
        /**
         * At random, unevenly: replica {@code i} of {@code n} takes {@code (n - i) / (n (n + 1) / 2)}
         * of the arrivals (three replicas: 1/2, 1/3, 1/6), as a proxy with sticky or skewed
         * balancing does. What one governor must survive: no replica sees a fair third.
         */
        UNEVEN;

        /** The name in scenario files: {@code round_robin}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        ConfigException.require(duration.isPositive(), "duration", "> 0", duration);
        ConfigException.require(ciDuration.isPositive() && ciDuration.compareTo(duration) <= 0, "ci_duration",
                "> 0 and <= duration " + duration, ciDuration);
        ConfigException.require(replicas >= 1 && replicas <= 64, "replicas", "in [1, 64]", replicas);
        Objects.requireNonNull(config, "config");
        providers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(providers));
        workload = List.copyOf(workload);
        events = List.copyOf(events);
        secrets = Map.copyOf(secrets);
        Objects.requireNonNull(goals, "goals");
        Objects.requireNonNull(proxy, "proxy");
        ConfigException.require(!workload.isEmpty(), "workload", "at least one client stream", "none");
    }

    /**
     * The short form: {@code ciDuration} long, with every absolute time (event times, stream starts,
     * stops and steps) scaled by {@code ciDuration / duration}; rates, sizes and lengths unchanged.
     */
    public Scenario shortForm() {
        return scaledTo(ciDuration);
    }

    /**
     * This scenario compressed to {@code length} (at most its duration): absolute times scaled by
     * {@code length / duration}; rates, sizes and lengths unchanged.
     */
    public Scenario scaledTo(Duration length) {
        ConfigException.require(length.isPositive() && length.compareTo(duration) <= 0, "length",
                "> 0 and <= duration " + duration, length);
        double f = (double) length.toNanos() / duration.toNanos();
        return new Scenario(name, description, length, length.compareTo(ciDuration) < 0 ? length : ciDuration, seed,
                replicas, config, providers,
                workload.stream().map(w -> w.scaled(f)).toList(), events.stream().map(e -> e.scaled(f)).toList(),
                secrets, goals, proxy);
    }

    /**
     * This scenario on {@code n} replicas sharing one quota store (the Redis deployment: Redis
     * itself with {@code sluice sim --redis}, else modelled as one atomic store), behind a proxy
     * that spreads arrivals over them unevenly when there are several ({@link Proxy#UNEVEN}).
     */
    public Scenario onReplicas(int n) {
        ConfigException.require(n >= 1 && n <= 64, "--replicas", "in [1, 64]", n);
        var st = config.store();
        SluiceConfig shared = config.withStore(new dev.sluice.runtime.config.StoreSettings(
                dev.sluice.runtime.config.StoreSettings.Kind.REDIS, st.redisUri(), st.failurePolicy(), n));
        return new Scenario(name, description, duration, ciDuration, seed, n, shared, providers, workload, events,
                secrets, goals, n == 1 ? Proxy.ROUND_ROBIN : Proxy.UNEVEN);
    }

    /** Whether all replicas share one quota store (the Redis deployment model). */
    public boolean sharedStore() {
        return config.store().kind() == dev.sluice.runtime.config.StoreSettings.Kind.REDIS;
    }
}
