package dev.sluice.sim.scenario;

import dev.sluice.runtime.yaml.YamlNode;
import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.mock.limits.AccelerationRule;
import dev.sluice.mock.limits.Enforcement;
import dev.sluice.mock.limits.HeaderReport;
import dev.sluice.mock.limits.LimitKind;
import dev.sluice.mock.limits.OutputAccounting;
import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.mock.limits.RetryAfterMeaning;
import dev.sluice.mock.limits.TokenCounting;
import dev.sluice.mock.limits.WarmUp;
import dev.sluice.mock.limits.WindowKind;
import java.util.EnumMap;
import java.util.Locale;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How the simulated provider behind one deployment behaves: its true limits (by default the ones
 * the deployment is configured with), how it enforces them, how fast it answers and how often it
 * fails. Limit semantics come from the mock provider's {@code ProviderLimitModel}; how it enforces and
 * reports them is a member of the provider family ({@code ProviderFamily}), with the axes the
 * scenario pins here fixed.
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
 * @param pins the provider behaviour axes this scenario fixes, whatever member is drawn
 */
public record ProviderSpec(Optional<Map<String, Long>> limits, Duration requestWindow,
        OutputAccounting outputAccounting, boolean cacheReadCountsAgainstInputTpm, AccelerationRule acceleration,
        LatencySpec latency, double errorRate, List<FaultKind> errors, Pins pins) {

    /**
     * Axes of the provider's behaviour a scenario fixes; empty ones come from the drawn member (the
     * reference model unless a sweep or {@code --model} draws another).
     *
     * @param windows per rate limit, a short-window enforcement; a kind, window or burst left out is
     *     the member's, or for the reference model the limit's own (requests: fixed windows of
     *     {@code request_window}; tokens: a bucket of a minute), burst 1
     */
    public record Pins(Map<LimitKind, PartialEnforcement> windows, Optional<TokenCounting> counting,
            Optional<RetryAfterMeaning> retryAfter, Optional<HeaderReport> headers, Optional<Duration> staleness,
            Optional<WarmUp> warmUp) {

        public static final Pins NONE = new Pins(Map.of(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty());

        public Pins {
            windows = Map.copyOf(windows);
        }
    }

    /** An enforcement with any part left to the drawn member. */
    public record PartialEnforcement(Optional<WindowKind> kind, Optional<Duration> window, Optional<Double> burst) {}

    public ProviderSpec {
        limits = limits.map(m -> Map.copyOf(new TreeMap<>(m)));
        ConfigException.require(errorRate >= 0 && errorRate <= 1, "error_rate", "in [0, 1]", errorRate);
        errors = List.copyOf(errors);
        java.util.Objects.requireNonNull(pins, "pins");
    }

    /** The behaviour of this provider: {@code drawn} (a family member) with this scenario's pins applied. */
    public ProviderBehaviour behaviour(ProviderBehaviour drawn) {
        ProviderBehaviour b = drawn;
        for (LimitKind kind : ProviderBehaviour.RATE_LIMITS) {
            PartialEnforcement p = pins.windows().get(kind);
            if (p == null) {
                continue;
            }
            Optional<Enforcement> had = Optional.ofNullable(drawn.enforcement().get(kind));
            WindowKind k = p.kind().or(() -> had.map(Enforcement::kind))
                    .orElse(kind == LimitKind.REQUESTS ? WindowKind.FIXED : WindowKind.TOKEN_BUCKET);
            Duration w = p.window().or(() -> had.map(Enforcement::window))
                    .orElse(kind == LimitKind.REQUESTS ? requestWindow : Duration.ofMinutes(1));
            double burst = p.burst().or(() -> had.map(Enforcement::burst)).orElse(1.0);
            b = b.withEnforcement(kind, new Enforcement(k, w, burst));
        }
        if (pins.counting().isPresent()) {
            b = b.withCounting(pins.counting().get());
        }
        if (pins.retryAfter().isPresent()) {
            b = b.withRetryAfter(pins.retryAfter().get());
        }
        if (pins.headers().isPresent()) {
            HeaderReport h = pins.headers().get();
            b = b.withHeaders(h, h == HeaderReport.STALE ? pins.staleness().orElse(Duration.ofSeconds(5)) : Duration.ZERO);
        }
        if (pins.warmUp().isPresent()) {
            b = b.withWarmUp(pins.warmUp());
        }
        return b;
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
                    false, AccelerationRule.off(), LatencySpec.DEFAULT, 0, List.of(FaultKind.SERVER_ERROR), Pins.NONE);
            case "gemini" -> new ProviderSpec(Optional.empty(), Duration.ofMinutes(1), OutputAccounting.ACTUAL_ONLY,
                    true, AccelerationRule.off(), LatencySpec.DEFAULT, 0, List.of(FaultKind.SERVER_ERROR), Pins.NONE);
            case "azure-openai" -> new ProviderSpec(Optional.empty(), Duration.ofSeconds(10),
                    OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT, true, AccelerationRule.off(), LatencySpec.DEFAULT,
                    0, List.of(FaultKind.SERVER_ERROR), Pins.NONE);
            default -> new ProviderSpec(Optional.empty(), Duration.ofSeconds(1),
                    OutputAccounting.RESERVE_MAX_TOKENS_THEN_CORRECT, true, AccelerationRule.off(), LatencySpec.DEFAULT,
                    0, List.of(FaultKind.SERVER_ERROR), Pins.NONE);
        };
    }

    static ProviderSpec parse(YamlNode n, String kind) {
        ProviderSpec d = defaults(kind);
        if (!n.present()) {
            return d;
        }
        n.allowOnly(Set.of("limits", "request_window", "output_accounting", "cache_read_counts_against_input_tpm",
                "acceleration", "latency", "error_rate", "errors", "windows", "token_count", "retry_after", "headers",
                "header_staleness", "warm_up"));
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
                n.get("error_rate").doubleValue(0), errors, parsePins(n));
    }

    private static final Map<String, LimitKind> WINDOW_KEYS = Map.of("rpm", LimitKind.REQUESTS,
            "input_tpm", LimitKind.INPUT_TOKENS, "output_tpm", LimitKind.OUTPUT_TOKENS, "tpm", LimitKind.TOKENS);

    private static Pins parsePins(YamlNode n) {
        Map<LimitKind, PartialEnforcement> windows = new EnumMap<>(LimitKind.class);
        YamlNode w = n.get("windows");
        if (w.present()) {
            w.allowOnly(WINDOW_KEYS.keySet());
            w.entries().forEach((name, e) -> {
                e.allowOnly(Set.of("kind", "window", "burst"));
                Optional<WindowKind> kind = e.get("kind").optText().map(t -> switch (t) {
                    case "fixed" -> WindowKind.FIXED;
                    case "sliding" -> WindowKind.SLIDING;
                    case "token_bucket" -> WindowKind.TOKEN_BUCKET;
                    default -> throw new ConfigException(e.get("kind").path(), "fixed, sliding or token_bucket", t);
                });
                Optional<Duration> window = e.get("window").optDuration();
                window.ifPresent(d -> ConfigException.require(d.compareTo(Enforcement.MIN_WINDOW) >= 0
                        && d.compareTo(Enforcement.MAX_WINDOW) <= 0, e.get("window").path(), "between 1ms and 60s", d));
                Optional<Double> burst = e.get("burst").present() ? Optional.of(e.get("burst").requiredDouble())
                        : Optional.empty();
                burst.ifPresent(b -> ConfigException.require(b >= 1 && b <= 10, e.get("burst").path(),
                        "between 1 and 10", b));
                windows.put(WINDOW_KEYS.get(name), new PartialEnforcement(kind, window, burst));
            });
        }
        Optional<TokenCounting> counting = Optional.empty();
        YamlNode c = n.get("token_count");
        if (c.present()) {
            c.allowOnly(Set.of("factor", "per_request"));
            double factor = c.get("factor").doubleValue(1.0);
            ConfigException.require(factor >= 0.5 && factor <= 2, c.get("factor").path(), "between 0.5 and 2", factor);
            long per = c.get("per_request").longValue(0);
            ConfigException.require(per >= 0 && per <= 10_000, c.get("per_request").path(), "0 to 10000", per);
            counting = Optional.of(new TokenCounting(factor, per));
        }
        Optional<RetryAfterMeaning> retry = n.get("retry_after").optText().map(t -> switch (t) {
            case "next_window" -> RetryAfterMeaning.NEXT_WINDOW;
            case "full_refill" -> RetryAfterMeaning.FULL_REFILL;
            case "absent" -> RetryAfterMeaning.ABSENT;
            default -> throw new ConfigException(n.get("retry_after").path(), "next_window, full_refill or absent", t);
        });
        Optional<HeaderReport> headers = n.get("headers").optText().map(t -> {
            try {
                return HeaderReport.valueOf(t.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(n.get("headers").path(), "present, absent or stale", t);
            }
        });
        Optional<Duration> staleness = n.get("header_staleness").optDuration();
        Optional<WarmUp> warmUp = Optional.empty();
        YamlNode wu = n.get("warm_up");
        if (wu.present()) {
            wu.allowOnly(Set.of("initial", "doubling"));
            double initial = wu.get("initial").requiredDouble();
            ConfigException.require(initial > 0 && initial <= 1, wu.get("initial").path(), "in (0, 1]", initial);
            Duration doubling = wu.get("doubling").requiredDuration();
            ConfigException.require(doubling.isPositive(), wu.get("doubling").path(), "> 0", doubling);
            warmUp = Optional.of(new WarmUp(initial, doubling));
        }
        return new Pins(windows, counting, retry, headers, staleness, warmUp);
    }

    /** The limited dimensions, for reports: the governor's dimension for each provider limit. */
    public static Optional<Dimension> dimensionOf(String limiterName) {
        return Dimension.byLimiterName(limiterName);
    }
}
