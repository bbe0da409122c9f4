package dev.sluice.runtime.request;

import java.util.Objects;

/** What the transport does once an attempt is finished. */
public sealed interface AfterAttempt {

    /** Nothing more: answer the client from this attempt. */
    AfterAttempt DONE = new Done();

    /** Answer the client from this attempt. */
    record Done() implements AfterAttempt {}

    /**
     * Ask for the next attempt's admission again ({@code RequestLifecycle.admit}): the routing
     * policy moves it to another deployment. This attempt's reservation is already ended.
     *
     * @param reason the fallback reason, as {@code x-sluice-fallback} says it
     */
    record Reroute(String reason) implements AfterAttempt {
        public Reroute {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Send again after {@code delayMillis}: {@code next} holds the same reservation, on the same
     * deployment.
     */
    record Retry(long delayMillis, Attempt next) implements AfterAttempt {
        public Retry {
            Objects.requireNonNull(next, "next");
            if (delayMillis < 1) {
                throw new IllegalArgumentException("delayMillis: " + delayMillis + " (expected: >= 1)");
            }
        }
    }
}
