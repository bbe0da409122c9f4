/**
 * Provider-signal normalisation: every provider response, whatever its dialect (OpenAI, Azure
 * OpenAI, Anthropic, Gemini, OpenAI-compatible servers, the IETF RateLimit fields), becomes one
 * {@link dev.sluice.signal.ProviderSignal} the governor can learn from.
 *
 * <p>Entry point: {@link dev.sluice.signal.SignalNormaliser}. Headers and bodies are untrusted
 * input: malformed values are ignored and counted, never thrown, and nothing the response did not
 * say is invented.
 */
package dev.sluice.signal;
