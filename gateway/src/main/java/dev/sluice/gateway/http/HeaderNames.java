package dev.sluice.gateway.http;

import io.netty.util.AsciiString;

/**
 * Names of the headers the gateway sets on every answer, built once as Netty {@code AsciiString}s:
 * a {@code String} name is checked and hashed on every set and copied char by char when written;
 * an {@code AsciiString} keeps its hash and is written as bytes.
 */
public final class HeaderNames {

    private HeaderNames() {}

    public static final CharSequence CONTENT_TYPE = AsciiString.cached("content-type");
    public static final CharSequence TRACE_ID = AsciiString.cached("x-sluice-trace-id");
    public static final CharSequence RATELIMIT_POLICY = AsciiString.cached("RateLimit-Policy");
    public static final CharSequence RATELIMIT = AsciiString.cached("RateLimit");
    public static final CharSequence LIMIT_REQUESTS = AsciiString.cached("x-ratelimit-limit-requests");
    public static final CharSequence REMAINING_REQUESTS = AsciiString.cached("x-ratelimit-remaining-requests");
    public static final CharSequence RESET_REQUESTS = AsciiString.cached("x-ratelimit-reset-requests");
    public static final CharSequence LIMIT_TOKENS = AsciiString.cached("x-ratelimit-limit-tokens");
    public static final CharSequence REMAINING_TOKENS = AsciiString.cached("x-ratelimit-remaining-tokens");
    public static final CharSequence RESET_TOKENS = AsciiString.cached("x-ratelimit-reset-tokens");
}
