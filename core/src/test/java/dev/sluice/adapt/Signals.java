package dev.sluice.adapt;

import dev.sluice.signal.LimitKind;
import dev.sluice.signal.LimitObservation;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalStatus;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** Normalised provider answers for tests, built directly as the normaliser would. */
final class Signals {

    private Signals() {}

    static ProviderSignal success(LimitObservation... observations) {
        return new ProviderSignal(SignalStatus.SUCCESS, 200, Optional.empty(), OptionalLong.empty(), false,
                List.of(observations), ProviderSignal.REASON_OK, 0);
    }

    static ProviderSignal limited(LimitObservation... observations) {
        return limited(Optional.empty(), OptionalLong.empty(), observations);
    }

    static ProviderSignal limited(Optional<LimitKind> hit, OptionalLong retryAfterMillis,
            LimitObservation... observations) {
        return new ProviderSignal(SignalStatus.RATE_LIMITED, 429, hit, retryAfterMillis, true, List.of(observations),
                ProviderSignal.REASON_RATE_LIMITED, 0);
    }

    static ProviderSignal refused(String reason, Optional<LimitKind> hit, OptionalLong retryAfterMillis) {
        return new ProviderSignal(SignalStatus.RATE_LIMITED, 429, hit, retryAfterMillis, false, List.of(), reason, 0);
    }

    static ProviderSignal overloaded() {
        return new ProviderSignal(SignalStatus.OVERLOADED, 529, Optional.empty(), OptionalLong.empty(), true,
                List.of(), ProviderSignal.REASON_OVERLOADED, 0);
    }

    static ProviderSignal status(SignalStatus status, int http, String reason) {
        return new ProviderSignal(status, http, Optional.empty(), OptionalLong.empty(), true, List.of(), reason, 0);
    }

    static LimitObservation limit(LimitKind kind, long limit) {
        return new LimitObservation(kind, OptionalLong.of(limit), OptionalLong.empty(), OptionalLong.empty(), "test");
    }

    static LimitObservation remaining(LimitKind kind, long remaining) {
        return new LimitObservation(kind, OptionalLong.empty(), OptionalLong.of(remaining), OptionalLong.empty(),
                "test");
    }
}
