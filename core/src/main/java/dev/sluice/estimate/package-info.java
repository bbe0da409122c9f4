/**
 * Preflight token estimation: how many input and output tokens a request will cost before it is
 * sent, so the governor can reserve capacity, and how to learn from what the provider reports.
 *
 * <p>{@link dev.sluice.estimate.TokenEstimator} is the entry point. Input tokens come from a real
 * tokenizer for OpenAI-family profiles and from a calibrated character heuristic elsewhere, both
 * corrected by a ratio learned from settled usage. Output tokens are {@code min(max_tokens, p95)}
 * of the route's recent history. Expected cache reads are subtracted from the input-limit charge
 * only for providers that do not count them against that limit.
 */
package dev.sluice.estimate;
