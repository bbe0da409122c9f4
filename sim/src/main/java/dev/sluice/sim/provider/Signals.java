package dev.sluice.sim.provider;

import dev.sluice.mock.limits.Gauge;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.LimitObservation;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Builds the {@link ProviderSignal} the gateway's normaliser would produce from a provider's
 * answer, following each dialect: which limits its headers report, how it rounds, and in what
 * unit it gives a wait hint.
 */
final class Signals {

    private Signals() {}

    /** The wait hint as the client sees it, in the dialect's unit. */
    static OptionalLong retryHint(String kind, long retryAfterMillis) {
        long ms = Math.max(1, retryAfterMillis);
        return switch (kind) {
            // retry-after-ms (Azure documents it; the OpenAI SDKs read it first).
            case "openai", "azure-openai" -> OptionalLong.of(ms);
            // Anthropic retry-after and Gemini RetryInfo are whole seconds.
            default -> OptionalLong.of(Math.ceilDiv(ms, 1000) * 1000);
        };
    }

    static ProviderSignal success(String kind, LimitSnapshot snapshot) {
        return new ProviderSignal(SignalStatus.SUCCESS, 200, Optional.empty(), OptionalLong.empty(), false,
                observations(kind, snapshot), ProviderSignal.REASON_OK, 0);
    }

    static ProviderSignal rateLimited(String kind, dev.sluice.mock.limits.LimitKind which, OptionalLong hint,
            LimitSnapshot snapshot) {
        LimitKind hit = map(which);
        boolean daily = hit == LimitKind.DAILY_QUOTA;
        return new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.of(hit),
                clamp(hint), !daily, observations(kind, snapshot),
                daily ? ProviderSignal.REASON_QUOTA_EXHAUSTED : ProviderSignal.REASON_RATE_LIMITED, 0);
    }

    static ProviderSignal tooLarge(String kind, dev.sluice.mock.limits.LimitKind which, LimitSnapshot snapshot) {
        return new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.of(map(which)), OptionalLong.empty(), false,
                observations(kind, snapshot), ProviderSignal.REASON_REQUEST_TOO_LARGE, 0);
    }

    static ProviderSignal serverError() {
        return new ProviderSignal(SignalStatus.SERVER_ERROR, 500, Optional.empty(), OptionalLong.empty(), true,
                List.of(), ProviderSignal.REASON_SERVER_ERROR, 0);
    }

    static ProviderSignal overloaded(String kind) {
        int status = kind.equals("anthropic") ? 529 : 503;
        return new ProviderSignal(SignalStatus.OVERLOADED, status, Optional.empty(), OptionalLong.empty(), true,
                List.of(), ProviderSignal.REASON_OVERLOADED, 0);
    }

    static ProviderSignal connectionReset() {
        return new ProviderSignal(SignalStatus.CONNECTION_FAILED, 0, Optional.empty(), OptionalLong.empty(), true,
                List.of(), ProviderSignal.REASON_CONNECTION_FAILED, 0);
    }

    private static OptionalLong clamp(OptionalLong hint) {
        return hint.isPresent() ? OptionalLong.of(Math.min(hint.getAsLong(), ProviderSignal.MAX_DELAY_MILLIS)) : hint;
    }

    static LimitKind map(dev.sluice.mock.limits.LimitKind k) {
        return switch (k) {
            case REQUESTS, ACCELERATION -> LimitKind.REQUESTS;
            case REQUESTS_PER_DAY -> LimitKind.DAILY_QUOTA;
            case CONCURRENCY -> LimitKind.CONCURRENCY;
            case INPUT_TOKENS -> LimitKind.INPUT_TOKENS;
            case OUTPUT_TOKENS -> LimitKind.OUTPUT_TOKENS;
            case TOKENS -> LimitKind.TOKENS;
        };
    }

    /** What the dialect's rate-limit headers say; Gemini sends none. */
    private static List<LimitObservation> observations(String kind, LimitSnapshot s) {
        List<LimitObservation> out = new ArrayList<>(4);
        if (kind.equals("gemini")) {
            return out;
        }
        String source = kind.equals("anthropic") ? "anthropic-ratelimit" : "x-ratelimit";
        s.requestsPerMinute().ifPresent(g -> out.add(obs(LimitKind.REQUESTS, g, source, false)));
        boolean round = kind.equals("anthropic");
        s.gauge(dev.sluice.mock.limits.LimitKind.INPUT_TOKENS)
                .ifPresent(g -> out.add(obs(LimitKind.INPUT_TOKENS, g, source, round)));
        s.gauge(dev.sluice.mock.limits.LimitKind.OUTPUT_TOKENS)
                .ifPresent(g -> out.add(obs(LimitKind.OUTPUT_TOKENS, g, source, round)));
        s.gauge(dev.sluice.mock.limits.LimitKind.TOKENS).ifPresent(g -> out.add(obs(LimitKind.TOKENS, g, source, round)));
        return out;
    }

    private static LimitObservation obs(LimitKind kind, Gauge g, String source, boolean roundToThousands) {
        long remaining = roundToThousands ? Math.round(g.remaining() / 1000.0) * 1000 : g.remaining();
        return new LimitObservation(kind, OptionalLong.of(g.limit()), OptionalLong.of(remaining),
                OptionalLong.of(Math.min(g.resetMillis(), ProviderSignal.MAX_DELAY_MILLIS)), source);
    }
}
