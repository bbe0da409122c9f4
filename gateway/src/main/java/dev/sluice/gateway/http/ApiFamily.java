package dev.sluice.gateway.http;

/** The SDK family a route belongs to; it decides the error body shape. */
public enum ApiFamily {
    OPENAI, ANTHROPIC, GEMINI
}
