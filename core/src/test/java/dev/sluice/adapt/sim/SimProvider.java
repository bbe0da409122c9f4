package dev.sluice.adapt.sim;

import dev.sluice.signal.Headers;
import dev.sluice.signal.LimitKind;
import dev.sluice.signal.LimitObservation;
import dev.sluice.signal.ProviderKind;
import dev.sluice.signal.ProviderSignal;
import dev.sluice.signal.SignalNormaliser;
import dev.sluice.signal.SignalStatus;
import dev.sluice.time.FakeClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.DoubleUnaryOperator;

/**
 * A deterministic simulated provider that enforces its limits the way the real ones do: a request
 * bucket holding ten seconds of its RPM and a token bucket holding a minute of its TPM, both
 * refilling continuously; requests are charged input plus max output tokens at arrival. Options:
 * limit and remaining figures on every answer (OpenAI style) with a retry delay on 429s; an
 * acceleration limit (a ten-second window may carry at most twice the previous one, or a quarter
 * of the window's share of the RPM, whichever is more); scripted overload (529s) and latency, as
 * functions of the time in seconds. With {@link #wire()} every answer is written as OpenAI-style
 * headers and error bodies and read back through the real {@link SignalNormaliser}.
 */
final class SimProvider {

    private static final long WINDOW_NANOS = 10_000_000_000L;
    private static final long NANOS_PER_MINUTE = 60_000_000_000L;
    private static final double ACCELERATION_FLOOR = 0.25;
    private static final double ACCELERATION_GROWTH = 2.0;

    /** One answer: the normalised signal the gateway would read, and when it arrives after sending. */
    record Answer(ProviderSignal signal, long latencyNanos) {
        boolean ok() {
            return signal.status() == SignalStatus.SUCCESS;
        }
    }

    private final boolean headers;
    private final boolean acceleration;
    private final SplittableRandom random;
    private long rpm;
    private long tpm;
    private double requestLevel;
    private double tokenLevel;
    private long lastRefill;
    private final Map<Long, Long> admittedPerWindow = new HashMap<>();
    private DoubleUnaryOperator overloadProbability = t -> 0;
    private DoubleUnaryOperator latencyFactor = t -> 1;
    private SignalNormaliser normaliser;
    private boolean fullRefillHints;

    SimProvider(long rpm, long tpm, boolean headers, boolean acceleration, long seed) {
        this.rpm = rpm;
        this.tpm = tpm;
        this.headers = headers;
        this.acceleration = acceleration;
        this.random = new SplittableRandom(seed);
        this.requestLevel = requestCapacity();
        this.tokenLevel = tpm;
    }

    /** The probability, by time in seconds, that a request is answered 529 whatever the buckets hold. */
    SimProvider overload(DoubleUnaryOperator probability) {
        this.overloadProbability = probability;
        return this;
    }

    /**
     * Without limit figures, a 429 still names the refused limit and asks to wait for its whole
     * bucket to refill (a provider announcing a full refill), not for the one request's share.
     */
    SimProvider fullRefillHints() {
        this.fullRefillHints = true;
        return this;
    }

    /** Answers go over the wire: OpenAI headers and bodies, read by the real normaliser. */
    SimProvider wire() {
        this.normaliser = new SignalNormaliser(ProviderKind.OPENAI);
        return this;
    }

    /** A factor on latency, by time in seconds. */
    SimProvider latency(DoubleUnaryOperator factor) {
        this.latencyFactor = factor;
        return this;
    }

    /**
     * Changes the limits from {@code now}; what the buckets hold is cut to the new capacity, or to
     * nothing when {@code drain} (the harshest case: no stock left to absorb the change).
     */
    void setLimits(long newRpm, long newTpm, long now, boolean drain) {
        refill(now);
        rpm = newRpm;
        tpm = newTpm;
        requestLevel = drain ? 0 : Math.min(requestLevel, requestCapacity());
        tokenLevel = drain ? 0 : Math.min(tokenLevel, tpm);
    }

    Answer handle(long now, long inputTokens, long maxOutputTokens) {
        refill(now);
        double seconds = now / 1e9;
        if (random.nextDouble() < overloadProbability.applyAsDouble(seconds)) {
            return new Answer(signal(now, SignalStatus.OVERLOADED, 529, Optional.empty(), OptionalLong.empty(),
                    ProviderSignal.REASON_OVERLOADED), 50_000_000L);
        }
        long need = inputTokens + maxOutputTokens;
        long window = Math.floorDiv(now, WINDOW_NANOS);
        long inWindow = admittedPerWindow.getOrDefault(window, 0L);
        if (acceleration) {
            double allowed = Math.max(ACCELERATION_FLOOR * requestCapacity(),
                    ACCELERATION_GROWTH * admittedPerWindow.getOrDefault(window - 1, 0L));
            if (inWindow + 1 > allowed) {
                return limited(now, Optional.empty(), (window + 1) * WINDOW_NANOS - now);
            }
        }
        if (requestLevel < 1) {
            double missing = fullRefillHints ? requestCapacity() - requestLevel : 1 - requestLevel;
            return limited(now, Optional.of(LimitKind.REQUESTS), (long) Math.ceil(missing * NANOS_PER_MINUTE / rpm));
        }
        if (tokenLevel < need) {
            double missing = fullRefillHints ? tpm - tokenLevel : need - tokenLevel;
            return limited(now, Optional.of(LimitKind.TOKENS), (long) Math.ceil(missing * NANOS_PER_MINUTE / tpm));
        }
        requestLevel -= 1;
        tokenLevel -= need;
        admittedPerWindow.put(window, inWindow + 1);
        admittedPerWindow.remove(window - 3);
        double jitter = 0.8 + 0.4 * random.nextDouble();
        long latency = (long) ((600_000_000L + maxOutputTokens * 5_000_000L) * jitter
                * latencyFactor.applyAsDouble(seconds));
        return new Answer(signal(now, SignalStatus.SUCCESS, 200, Optional.empty(), OptionalLong.empty(),
                ProviderSignal.REASON_OK), latency);
    }

    private Answer limited(long now, Optional<LimitKind> hit, long waitNanos) {
        boolean hints = headers || fullRefillHints;
        OptionalLong retry = hints ? OptionalLong.of(Math.max(1, (waitNanos + 999_999) / 1_000_000))
                : OptionalLong.empty();
        return new Answer(signal(now, SignalStatus.RATE_LIMITED, 429, hints ? hit : Optional.empty(), retry,
                ProviderSignal.REASON_RATE_LIMITED), 30_000_000L);
    }

    /** The answer as a signal: built directly, or written to the wire and read back by the normaliser. */
    private ProviderSignal signal(long now, SignalStatus status, int http, Optional<LimitKind> hit,
            OptionalLong retryMillis, String reason) {
        if (normaliser == null) {
            return new ProviderSignal(status, http, hit, retryMillis, status != SignalStatus.SUCCESS
                    && status != SignalStatus.CLIENT_ERROR, observations(), reason, 0);
        }
        Map<String, String> h = new HashMap<>();
        String body = "";
        if (headers) {
            h.put("x-ratelimit-limit-requests", Long.toString(rpm));
            h.put("x-ratelimit-remaining-requests", Long.toString((long) requestLevel));
            h.put("x-ratelimit-reset-requests", goDuration((long) ((requestCapacity() - requestLevel) * 60_000 / rpm)));
            h.put("x-ratelimit-limit-tokens", Long.toString(tpm));
            h.put("x-ratelimit-remaining-tokens", Long.toString((long) tokenLevel));
            h.put("x-ratelimit-reset-tokens", goDuration((long) ((tpm - tokenLevel) * 60_000 / tpm)));
            retryMillis.ifPresent(ms -> h.put("retry-after-ms", Long.toString(ms)));
        }
        if (status == SignalStatus.RATE_LIMITED) {
            String type = hit.map(k -> k == LimitKind.REQUESTS ? "requests" : "tokens").orElse("requests");
            body = "{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization org-sim on " + type
                    + " per min. Please try again later.\",\"type\":\"" + type
                    + "\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}";
        } else if (status == SignalStatus.OVERLOADED) {
            http = 503;
            body = "{\"error\":{\"message\":\"Slow Down\",\"type\":\"server_error\",\"code\":null}}";
        }
        long epochMillis = FakeClock.DEFAULT_START.toEpochMilli() + now / 1_000_000;
        return normaliser.normalise(http, Headers.ofSingle(h), body, epochMillis);
    }

    /** A Go duration as OpenAI writes resets: {@code 120ms}, {@code 1.5s}, {@code 6m0s}. */
    private static String goDuration(long millis) {
        if (millis < 1_000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%ss", millis / 1000.0);
        }
        return (millis / 60_000) + "m" + String.format(Locale.ROOT, "%ss", (millis % 60_000) / 1000.0);
    }

    private List<LimitObservation> observations() {
        if (!headers) {
            return List.of();
        }
        List<LimitObservation> out = new ArrayList<>(2);
        out.add(new LimitObservation(LimitKind.REQUESTS, OptionalLong.of(rpm), OptionalLong.of((long) requestLevel),
                OptionalLong.of((long) ((requestCapacity() - requestLevel) * 60_000 / rpm)), "sim"));
        out.add(new LimitObservation(LimitKind.TOKENS, OptionalLong.of(tpm), OptionalLong.of((long) tokenLevel),
                OptionalLong.of((long) ((tpm - tokenLevel) * 60_000 / tpm)), "sim"));
        return out;
    }

    private void refill(long now) {
        long elapsed = now - lastRefill;
        if (elapsed > 0) {
            requestLevel = Math.min(requestCapacity(), requestLevel + elapsed * (double) rpm / NANOS_PER_MINUTE);
            tokenLevel = Math.min(tpm, tokenLevel + elapsed * (double) tpm / NANOS_PER_MINUTE);
            lastRefill = now;
        }
    }

    private double requestCapacity() {
        return rpm / 6.0;
    }
}
