package dev.sluice.gateway.http;

import dev.sluice.governor.GatewayDecision;
import io.vertx.core.MultiMap;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a refusal tells the client, decided once so that status, headers and body agree. Client
 * libraries act on different signals (the status, {@code x-should-retry}, whole-second
 * {@code Retry-After}, {@code retry-after-ms}, Gemini's {@code RetryInfo}), so each says the same:
 *
 * <ul>
 *   <li>the request itself can never fit ({@code *_too_large}): 413, no retry hint;
 *   <li>a scope paused by an operator: 429 (it is a rate decision, and the brief's normalised
 *       rejection with {@code gateway_decision: paused}) with {@code x-should-retry: false} and no
 *       retry hint: retrying fails until an operator resumes it;
 *   <li>retrying automatically cannot help soon (a spent daily cap, a wait longer than
 *       {@link ErrorBodies#MAX_CLIENT_RETRY_MILLIS}, any rejection marked not retryable): 429 with
 *       {@code x-should-retry: false} and no {@code Retry-After} or {@code retry-after-ms}, so that
 *       no library sleeps a token millisecond and tries again;
 *   <li>otherwise: 429 with {@code Retry-After} (whole seconds, rounded up) beside the exact
 *       {@code retry-after-ms}, and the same figure in the body.
 * </ul>
 *
 * @param status the HTTP status
 * @param retry whether the client should retry by itself, after {@link #retryAfterMillis}
 * @param retryAfterMillis when capacity is expected back, if waiting helps at all; the body's
 *        {@code retry_after_ms} (null when empty) and, only when {@link #retry}, the headers'
 */
public record Refusal(int status, boolean retry, OptionalLong retryAfterMillis) {

    public Refusal {
        Objects.requireNonNull(retryAfterMillis, "retryAfterMillis");
        if (retry && retryAfterMillis.isEmpty()) {
            throw new IllegalArgumentException("retryAfterMillis: empty (expected: a wait when retry is true)");
        }
    }

    /** The refusal that {@code v} calls for. */
    public static Refusal of(RejectionView v) {
        if (v.code().endsWith("_too_large")) {
            return new Refusal(413, false, OptionalLong.empty());
        }
        if (v.decision() == GatewayDecision.PAUSED) {
            return new Refusal(429, false, OptionalLong.empty());
        }
        if (v.code().equals("deadline_exceeded") && !v.retryable()) {
            return new Refusal(429, false, OptionalLong.empty());
        }
        long ms = v.retryAfterMillis();
        boolean retry = v.retryable() && ms <= ErrorBodies.MAX_CLIENT_RETRY_MILLIS;
        return new Refusal(429, retry, OptionalLong.of(ms));
    }

    /** Sets the retry headers: the hints when {@link #retry}, else {@code x-should-retry: false} alone. */
    public void headers(MultiMap headers) {
        if (retry) {
            long ms = retryAfterMillis.getAsLong();
            headers.set("retry-after", Long.toString(Math.ceilDiv(ms, 1000L)));
            headers.set("retry-after-ms", Long.toString(ms));
        } else {
            headers.remove("retry-after");
            headers.remove("retry-after-ms");
            headers.set("x-should-retry", "false");
        }
    }
}
