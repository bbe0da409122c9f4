package dev.sluice.mock.limits;

import java.util.Objects;

/** The provider's answer to a request arriving: admitted, rate limited, or larger than any limit. */
public sealed interface Admission permits Admission.Accepted, Admission.Limited, Admission.TooLarge {

    /** Admitted; complete the ticket when the response ends. */
    record Accepted(Ticket ticket) implements Admission {
        public Accepted {
            Objects.requireNonNull(ticket, "ticket");
        }
    }

    /**
     * Rejected now; may succeed later.
     *
     * @param which the limit that rejected it (the one with the longest wait when several did)
     * @param retryAfterMillis when this limit would admit the request if nothing else arrived; a hint
     * @param limit that limit's size (per window, per minute, in flight or per day)
     * @param remaining what was left of it when the request arrived
     * @param requested what the request asked of it
     */
    record Limited(LimitKind which, long retryAfterMillis, long limit, long remaining, long requested)
            implements Admission {
        public Limited {
            Objects.requireNonNull(which, "which");
        }

        /** What had been used of the limit: {@code limit - remaining}. */
        public long used() {
            return limit - remaining;
        }
    }

    /**
     * Rejected for good: the request alone asks more tokens than a minute's limit holds, so it can
     * never be admitted (OpenAI's "Request too large").
     */
    record TooLarge(LimitKind which, long limit, long requested) implements Admission {
        public TooLarge {
            Objects.requireNonNull(which, "which");
        }
    }
}
