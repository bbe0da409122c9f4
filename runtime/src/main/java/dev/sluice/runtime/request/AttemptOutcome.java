package dev.sluice.runtime.request;

import dev.sluice.signal.ProviderSignal;
import java.util.Objects;
import java.util.Optional;

/**
 * How one provider attempt ended, as its transport saw it. Every admitted attempt ends with
 * exactly one, given to {@link Attempt#finish}, which settles or releases its reservation, feeds
 * adaptive control, teaches the estimator, decides on a retry and emits the attempt's event.
 */
public sealed interface AttemptOutcome {

    /**
     * The provider answered with success and the answer (or the stream) ended.
     *
     * @param signal the answer's normalised signal
     * @param usage the usage the provider reported, or what Sluice counted of the answer
     */
    record Answered(ProviderSignal signal, ObservedUsage usage) implements AttemptOutcome {
        public Answered {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(usage, "usage");
        }
    }

    /** The provider refused with a 429. */
    record Throttled(ProviderSignal signal) implements AttemptOutcome {
        public Throttled {
            Objects.requireNonNull(signal, "signal");
        }
    }

    /** The provider refused the request itself with another 4xx (400, 401, 404, 413, 422 ...). */
    record Refused(ProviderSignal signal) implements AttemptOutcome {
        public Refused {
            Objects.requireNonNull(signal, "signal");
        }
    }

    /**
     * Sent, then the provider failed it: a 5xx or 529, a timeout, a reset, a broken stream, an
     * answer that could not be read.
     *
     * @param signal what the failure says ({@code SignalNormaliser.timeout()} when nothing came)
     * @param produced usage of what did arrive (a stream's tokens so far), when any was counted
     */
    record Failed(ProviderSignal signal, Optional<ObservedUsage> produced) implements AttemptOutcome {
        public Failed {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(produced, "produced");
        }
    }

    /**
     * The client went away while the attempt ran.
     *
     * @param sent whether the call could have reached the provider
     * @param produced usage of what arrived before the client left, when any was counted
     */
    record ClientGone(boolean sent, Optional<ObservedUsage> produced) implements AttemptOutcome {
        public ClientGone {
            Objects.requireNonNull(produced, "produced");
        }
    }

    /** Nothing reached the provider: the connection could not be made. */
    record NeverSent(ProviderSignal signal) implements AttemptOutcome {
        public NeverSent {
            Objects.requireNonNull(signal, "signal");
        }
    }
}
