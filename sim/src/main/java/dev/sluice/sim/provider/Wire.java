package dev.sluice.sim.provider;

import dev.sluice.mock.http.Flavour;
import dev.sluice.mock.http.MockConfig;
import dev.sluice.mock.http.ProviderWire;
import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.LimitSnapshot;
import dev.sluice.mock.limits.ProviderLimits;
import dev.sluice.signal.Headers;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a simulated answer looks like on the wire, and what the gateway reads from it: the mock's
 * own header and 429 rendering ({@link ProviderWire}) for the deployment's dialect, read back by
 * the gateway's {@link SignalNormaliser}. So the signal the adaptive controller gets, and the hint a
 * client SDK reads, are those of the real mock provider, not an approximation.
 */
final class Wire {

    private final MockConfig config;
    private final SignalNormaliser normaliser;

    /** The wire of a provider of {@code kind} behaving as {@code behaviour} (headers, wait hints). */
    Wire(String kind, dev.sluice.mock.limits.ProviderBehaviour behaviour) {
        this.config = MockConfig.builder(flavour(kind)).behaviour(behaviour).build();
        this.normaliser = new SignalNormaliser(providerKind(kind));
    }

    /** A rendered answer: the signal, the SDK's retry hint and the raw {@code retry-after} header. */
    record Read(ProviderSignal signal, OptionalLong sdkHintMillis, Optional<String> retryAfterHeader) {}

    Read success(ProviderLimits limits, LimitSnapshot snapshot, long epochMillis) {
        Map<String, List<String>> h = ProviderWire.successHeaders(config, limits, snapshot, epochMillis);
        return new Read(normaliser.normalise(200, Headers.of(h), "", epochMillis), OptionalLong.empty(),
                Optional.empty());
    }

    Read rejection(ProviderLimits limits, Admission rejection, LimitSnapshot snapshot, long epochMillis) {
        ProviderWire.Rejection r = ProviderWire.rejection(config, limits, rejection, "simulated-model", snapshot,
                epochMillis);
        ProviderSignal s = normaliser.normalise(r.status(), Headers.of(r.headers()), r.body(), epochMillis);
        return new Read(s, sdkHint(r, epochMillis), r.header("retry-after"));
    }

    ProviderSignal status(int httpStatus) {
        return normaliser.normalise(httpStatus, Headers.empty(), "", 0);
    }

    /** An error status carrying {@code retry-after} in whole seconds, as some 5xx and 529s do. */
    Read status(int httpStatus, java.time.Duration retryAfter, long epochMillis) {
        String seconds = Long.toString(Math.ceilDiv(retryAfter.toMillis(), 1000L));
        Map<String, List<String>> h = Map.of("retry-after", List.of(seconds));
        return new Read(normaliser.normalise(httpStatus, Headers.of(h), "", epochMillis),
                OptionalLong.of(Long.parseLong(seconds) * 1000), Optional.of(seconds));
    }

    ProviderSignal connectionFailed() {
        return SignalNormaliser.connectionFailed();
    }

    /** The official SDKs' order: retry-after-ms, then retry-after in (fractional) seconds or as an HTTP-date. */
    private static OptionalLong sdkHint(ProviderWire.Rejection r, long epochMillis) {
        Optional<String> ms = r.header("retry-after-ms");
        if (ms.isPresent()) {
            try {
                return OptionalLong.of((long) Math.ceil(Double.parseDouble(ms.get().trim())));
            } catch (NumberFormatException ignored) {
                // fall through to retry-after, as the SDKs do
            }
        }
        Optional<String> s = r.header("retry-after");
        if (s.isPresent()) {
            try {
                return OptionalLong.of((long) Math.ceil(Double.parseDouble(s.get().trim()) * 1000));
            } catch (NumberFormatException notSeconds) {
                try {
                    long at = java.time.ZonedDateTime.parse(s.get().trim(),
                            java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
                    return OptionalLong.of(Math.max(0, at - epochMillis));
                } catch (java.time.format.DateTimeParseException notDate) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /** The mock flavour that speaks a deployment kind's dialect. */
    static Flavour flavour(String kind) {
        return switch (kind) {
            case "azure-openai" -> Flavour.AZURE_OPENAI;
            case "anthropic" -> Flavour.ANTHROPIC;
            case "gemini" -> Flavour.GEMINI;
            default -> Flavour.OPENAI;
        };
    }

    static ProviderKind providerKind(String kind) {
        return switch (kind) {
            case "azure-openai" -> ProviderKind.AZURE_OPENAI;
            case "anthropic" -> ProviderKind.ANTHROPIC;
            case "gemini" -> ProviderKind.GEMINI;
            case "openai-compatible" -> ProviderKind.OPENAI_COMPATIBLE;
            default -> ProviderKind.OPENAI;
        };
    }
}
