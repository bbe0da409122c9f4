package dev.sluice.runtime.request;

import dev.sluice.governor.Rejection;
import java.util.Objects;

/** The governor's answer for a request's next attempt, on the request's thread. */
public sealed interface Admission {

    /** Capacity is held: send {@code attempt}. */
    record Admitted(Attempt attempt) implements Admission {
        public Admitted {
            Objects.requireNonNull(attempt, "attempt");
        }
    }

    /** Refused locally; nothing is held. Answer with the rejection. */
    record Refused(Rejection rejection) implements Admission {
        public Refused {
            Objects.requireNonNull(rejection, "rejection");
        }
    }

    /** The quota store could not be reached and the deployment's policy is to fail closed. */
    record StoreUnavailable() implements Admission {}
}
