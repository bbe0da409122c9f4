package dev.sluice.gateway.http;

import io.vertx.core.http.HttpHeaders;

/**
 * Names of the headers the gateway sets on every answer, built once as Netty {@code AsciiString}s:
 * Vert.x checks and hashes a {@code String} name on every set, and copies it char by char when
 * writing; an {@code AsciiString} keeps its hash and is written as bytes.
 */
public final class HeaderNames {

    private HeaderNames() {}

    public static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("content-type");
    public static final CharSequence TRACE_ID = HttpHeaders.createOptimized("x-sluice-trace-id");
    public static final CharSequence RATELIMIT_POLICY = HttpHeaders.createOptimized("RateLimit-Policy");
    public static final CharSequence RATELIMIT = HttpHeaders.createOptimized("RateLimit");
    public static final CharSequence LIMIT_REQUESTS = HttpHeaders.createOptimized("x-ratelimit-limit-requests");
    public static final CharSequence REMAINING_REQUESTS = HttpHeaders.createOptimized("x-ratelimit-remaining-requests");
    public static final CharSequence RESET_REQUESTS = HttpHeaders.createOptimized("x-ratelimit-reset-requests");
    public static final CharSequence LIMIT_TOKENS = HttpHeaders.createOptimized("x-ratelimit-limit-tokens");
    public static final CharSequence REMAINING_TOKENS = HttpHeaders.createOptimized("x-ratelimit-remaining-tokens");
    public static final CharSequence RESET_TOKENS = HttpHeaders.createOptimized("x-ratelimit-reset-tokens");
    public static final CharSequence MODEL_PROFILE = HttpHeaders.createOptimized("x-sluice-model-profile");
    public static final CharSequence PROVIDER_MODEL = HttpHeaders.createOptimized("x-sluice-provider-model");
    /** The deployment the answer came from. */
    public static final CharSequence DEPLOYMENT = HttpHeaders.createOptimized("x-sluice-deployment");
    /** Why that is not the request's first choice, when it is not. */
    public static final CharSequence FALLBACK = HttpHeaders.createOptimized("x-sluice-fallback");
    /** What decided a local refusal or a queue wait, on one line ({@link #explanation}). */
    public static final CharSequence EXPLANATION = HttpHeaders.createOptimized("x-sluice-explanation");

    /**
     * The {@code x-sluice-explanation} value: the governor's explanation (scope, dimension, pause,
     * reserve, predicted wait against the budget) followed by the deployment's mode when known.
     */
    public static String explanation(dev.sluice.governor.Explanation e, java.util.Optional<String> mode) {
        String line = e.headerValue();
        return mode.map(m -> line + " mode=" + m).orElse(line);
    }

    /**
     * The model rule of every answer: the body's {@code model} is the provider's model name (a
     * native answer passes as it came, and cost tables know provider names, not profile names); the
     * profile the client asked for is {@code x-sluice-model-profile}, the provider model again
     * {@code x-sluice-provider-model}.
     */
    public static void model(io.vertx.core.MultiMap headers, dev.sluice.runtime.config.ProfileConfig profile) {
        headers.set(MODEL_PROFILE, profile.id());
        headers.set(PROVIDER_MODEL, profile.model());
    }
}
