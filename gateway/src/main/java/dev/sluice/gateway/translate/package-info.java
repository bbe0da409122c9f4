/**
 * Pure translation between the OpenAI chat format (Sluice's unified API) and the Anthropic Messages
 * and Gemini generateContent wire formats, plus usage extraction for every provider.
 *
 * <p>Nothing here does I/O or knows about the HTTP server: inputs and outputs are Jackson trees,
 * byte arrays and strings, so the gateway and the simulator can share it.
 *
 * <ul>
 *   <li>Requests: {@link dev.sluice.gateway.translate.AnthropicRequests},
 *       {@link dev.sluice.gateway.translate.GeminiRequests}.</li>
 *   <li>Non-streaming responses: {@link dev.sluice.gateway.translate.AnthropicResponses},
 *       {@link dev.sluice.gateway.translate.GeminiResponses},
 *       {@link dev.sluice.gateway.translate.ProviderErrors}.</li>
 *   <li>Streams: {@link dev.sluice.gateway.translate.ChatStreams} builds a
 *       {@link dev.sluice.gateway.translate.ChatStreamConverter} that turns upstream SSE bytes into
 *       OpenAI {@code chat.completion.chunk} events incrementally; a native OpenAI stream passes as
 *       the bytes that came.</li>
 *   <li>Usage: {@link dev.sluice.gateway.translate.UsageExtractor} for whole bodies,
 *       {@link dev.sluice.gateway.translate.StreamUsageTracker} for streams, both producing
 *       {@link dev.sluice.runtime.request.ObservedUsage}.</li>
 *   <li>{@code SseFramer} cuts an SSE byte stream into events without decoding them; a passed-through
 *       stream forwards its frames, and {@link dev.sluice.gateway.translate.SseParser} decodes them
 *       for the translating streams.</li>
 * </ul>
 */
package dev.sluice.gateway.translate;
