package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.mock.limits.AccelerationRule;
import dev.sluice.mock.limits.OutputAccounting;
import dev.sluice.mock.limits.ProviderLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How the simulated provider behind one deployment behaves: its true limits (by default the ones
 * the deployment is configured with), how it enforces them, how fast it answers and how often it
 * fails. Limit semantics come from the mock provider's {@code ProviderLimitModel}.
 *
 * @param limits true limits by limiter name (rpm, input_tpm, output_tpm, tpm, concurrency,
 *     daily_requests); empty to use the deployment's configured limits
 * @param requestWindow sub-window over which RPM is enforced
 * @param outputAccounting whether {@code max_tokens} is reserved on arrival
 * @param cacheReadCountsAgainstInputTpm whether cache reads count against input TPM
 * @param acceleration the acceleration rule, or off
 * @param latency how long answers take
 * @param errorRate share of admitted requests that fail (outside fault bursts)
 * @param errors the kinds those failures take, chosen uniformly
 */
public record ProviderSpec(Optional<Map<String, Long>> limits, Duration requestWindow,
        OutputAccounting outputAccounting, boolean cacheReadCountsAgainstInputTpm, AccelerationRule acceleration,
        LatencySpec latency, double errorRate, List<FaultKind> errors) {

    public ProviderSpec {
        limits = limits.map(m -> Map.copyOf(new TreeMap<>(m)));
        ConfigException.require(errorRate >= 0 && errorRate <= 1, "error_rate", "in [0, 1]", errorRate);
        errors = List.copyOf(errors);
    }

    /**
     * Time to first token log-normal around {@code ttftMedian} (95th percentile {@code ttftP95}),
     * then {@code tokensPerSecond}; rejections and errors answer after {@code errorLatency}.
     */
    public record LatencySpec(Duration ttftMedian, Duration ttftP95, double tokensPerSecond, Duration errorLatency) {
        public static final LatencySpec DEFAULT = new LatencySpec(Duration.ofMillis(400), Duration.ofMillis(1200),
                80, Duration.ofMillis(40));

        public LatencySpec {
            ConfigException.require(ttftMedian.isPositive(), "ttft", "> 0", ttftMedian);
            ConfigException.require(ttftP95.compareTo(ttftMedian) >= 0, "ttft_p95", ">= ttft", ttftP95);
            ConfigException.require(tokensPerSecond > 0, "tokens_per_second", "> 0", tokensPerSecond);
            ConfigException.require(!errorLatency.isNegative(), "error_latency", ">= 0", errorLatency);
        }
    }

    /** The provider's limits for the mock's model, from its own or the deployment's configured limits. */
    public ProviderLimits providerLimits(Limits configured, double factor) {
        Map<String, Long> m = new TreeMap<>();
        if (limits.isPresent()) {
            m.putAll(limits.get());
        } else {
            for (var l : configured.all()) {
                m.put(l.dimension().limiterName(), l.amount());
            }
        }
        ProviderLimits.Builder b = ProviderLimits.builder()
                .requestWindow(requestWindow)
                .outputAccounting(outputAccounting)
                .cacheReadCountsAgainstInputTpm(cacheReadCountsAgainstInputTpm)
                .acceleration(acceleration);
        m.forEach((name, v) -> {
            long scaled = Math.max(1, Math.round(v * factor));
            switch (name) {
                case "rpm" -> b.rpm(scaled);
                case "input_tpm" -> b.inputTpm(scaled);
                case "output_tpm" -> b.outputTpm(scaled);
                case "tpm" -> b.tpm(scaled);
                case "concurrency" -> b.maxConcurrency((int) Math.min(Integer.MAX_VALUE - 1, scaled));
                case "daily_requests" -> b.rpd(scaled);
                default -> { } // streams and daily_tokens are the gateway's own limits, not a provider's
            }
        });
        return b.build();
    }

    /** Defaults by provider kind, as the mock provider's presets enforce them. */
    public static ProviderSpec defaults(String kind) {
        return switch (kind) {
            case "anthropic" -> new ProviderSpec(Optional.empty(), Duration.ofSeconds(1), OutputAccounting.ACTUAL_ONLY,
                    false, AccelerationRule.off(), LatencySpec.DEFAULT, 0, List.of(FaultKind.SERVER_ERROR));
            case "gemini" -> new ProviderSpec(Optional.empty(), Duration.ofMinutes(1), OutputAccounting.ACTUAL_ONLY,
                    true, AccelerationRule.off(), LatencySpec.DEFAULT, 0, List.of(FaultKind.SERVER_ERROR));
            case "azure-openai" -> new ProviderSpec(Optional.empty(), Duration.ofSeconds(10),
                    OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT, true, AccelerationRule.off(), LatencySpec.DEFAULT,
                    0, List.of(FaultKind.SERVER_ERROR));
            default -> new ProviderSpec(Optional.empty(), Duration.ofSeconds(1),
                    OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT, true, AccelerationRule.off(), LatencySpec.DEFAULT,
                    0, List.of(FaultKind.SERVER_ERROR));
        };
    }

    static ProviderSpec parse(YamlNode n, String kind) {
        ProviderSpec d = defaults(kind);
        if (!n.present()) {
            return d;
        }
        n.allowOnly(Set.of("limits", "request_window", "output_accounting", "cache_read_counts_against_input_tpm",
                "acceleration", "latency", "error_rate", "errors"));
        Optional<Map<String, Long>> limits = Optional.empty();
        if (n.get("limits").present()) {
            Map<String, Long> m = new TreeMap<>();
            n.get("limits").allowOnly(Set.of("rpm", "input_tpm", "output_tpm", "tpm", "concurrency", "daily_requests"))
                    .entries().forEach((k, v) -> m.put(k, v.longValue(0)));
            limits = Optional.of(m);
        }
        OutputAccounting oa = d.outputAccounting;
        if (n.get("output_accounting").present()) {
            String s = n.get("output_accounting").text();
            oa = switch (s) {
                case "reserve_max_tokens" -> OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT;
                case "actual_only" -> OutputAccounting.ACTUAL_ONLY;
                default -> throw new ConfigException(n.get("output_accounting").path(), "reserve_max_tokens or actual_only", s);
            };
        }
        AccelerationRule acc = d.acceleration;
        YamlNode a = n.get("acceleration");
        if (a.present()) {
            a.allowOnly(Set.of("factor", "floor_per_second", "recent_window", "baseline_window"));
            acc = new AccelerationRule(true, a.get("factor").requiredDouble(), a.get("floor_per_second").requiredDouble(),
                    a.get("recent_window").duration(AccelerationRule.DEFAULT_RECENT_WINDOW),
                    a.get("baseline_window").duration(AccelerationRule.DEFAULT_BASELINE_WINDOW));
        }
        LatencySpec lat = d.latency;
        YamlNode l = n.get("latency");
        if (l.present()) {
            l.allowOnly(Set.of("ttft", "ttft_p95", "tokens_per_second", "error_latency"));
            Duration ttft = l.get("ttft").duration(lat.ttftMedian());
            lat = new LatencySpec(ttft, l.get("ttft_p95").duration(ttft.multipliedBy(3)),
                    l.get("tokens_per_second").doubleValue(lat.tokensPerSecond()),
                    l.get("error_latency").duration(lat.errorLatency()));
        }
        List<FaultKind> errors = n.get("errors").present()
                ? n.get("errors").items().stream().map(FaultKind::parse).toList()
                : d.errors;
        return new ProviderSpec(limits, n.get("request_window").duration(d.requestWindow), oa,
                n.get("cache_read_counts_against_input_tpm").bool(d.cacheReadCountsAgainstInputTpm), acc, lat,
                n.get("error_rate").doubleValue(0), errors);
    }

    /** The limited dimensions, for reports: the governor's dimension for each provider limit. */
    public static Optional<Dimension> dimensionOf(String limiterName) {
        return Dimension.byLimiterName(limiterName);
    }
}
