package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The gateway's own alert rules ({@code alerts:} in the file, docs/CONFIG.md#alerts): how often they
 * are evaluated, each rule's threshold, and the webhook that hears of every firing and resolution.
 *
 * @param evaluateEvery how often the rules look at the gateway (off the request's way)
 * @param provider429Ratio a deployment's provider 429s over its attempts in one evaluation, above which it fires
 * @param provider429MinAttempts fewer attempts than this in an evaluation are too few to judge
 * @param queueDepth requests waiting on a deployment above which a queue still growing fires
 * @param bucketLowFraction a deployment bucket's level over its capacity below which it is low
 * @param bucketLowFor how long a bucket must stay low before it fires
 * @param estimateDrift provider-reported input over estimated input (or its inverse) above which it fires
 * @param estimateMinTokens estimated input tokens in an evaluation below which drift is not judged
 * @param rampStalledFor how long a ramp may stay on one stage below full before it fires
 * @param webhook where firings and resolutions are POSTed as JSON; empty for none
 * @param webhookMaxQueue notifications waiting for the webhook beyond which the oldest is dropped
 * @param webhookMaxAttempts tries per notification, the first included
 * @param webhookBackoff the wait before the first retry; doubled at each further one
 */
public record AlertSettings(Duration evaluateEvery, double provider429Ratio, long provider429MinAttempts,
        int queueDepth, double bucketLowFraction, Duration bucketLowFor, double estimateDrift, long estimateMinTokens,
        Duration rampStalledFor, Optional<URI> webhook, int webhookMaxQueue, int webhookMaxAttempts,
        Duration webhookBackoff) {

    public AlertSettings {
        Objects.requireNonNull(evaluateEvery, "evaluateEvery");
        Objects.requireNonNull(bucketLowFor, "bucketLowFor");
        Objects.requireNonNull(rampStalledFor, "rampStalledFor");
        Objects.requireNonNull(webhook, "webhook");
        Objects.requireNonNull(webhookBackoff, "webhookBackoff");
        ConfigException.require(evaluateEvery.compareTo(Duration.ofSeconds(1)) >= 0, "evaluate_every", ">= 1s",
                evaluateEvery);
        ConfigException.require(provider429Ratio > 0 && provider429Ratio <= 1, "provider_429_ratio",
                "a ratio above 0, at most 1", provider429Ratio);
        ConfigException.require(provider429MinAttempts >= 1, "provider_429_min_attempts", ">= 1", provider429MinAttempts);
        ConfigException.require(queueDepth >= 1, "queue_depth", ">= 1", queueDepth);
        ConfigException.require(bucketLowFraction > 0 && bucketLowFraction < 1, "bucket_low_fraction",
                "a fraction between 0 and 1", bucketLowFraction);
        ConfigException.require(!bucketLowFor.isNegative(), "bucket_low_for", ">= 0s", bucketLowFor);
        ConfigException.require(estimateDrift > 1, "estimate_drift", "a ratio above 1 (1.25: a quarter off)",
                estimateDrift);
        ConfigException.require(estimateMinTokens >= 1, "estimate_min_tokens", ">= 1", estimateMinTokens);
        ConfigException.require(!rampStalledFor.isNegative(), "ramp_stalled_for", ">= 0s", rampStalledFor);
        webhook.ifPresent(u -> ConfigException.require(("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
                && u.getHost() != null, "webhook.url", "an http or https URL", "\"" + u + "\""));
        ConfigException.require(webhookMaxQueue >= 1, "webhook.max_queue", ">= 1", webhookMaxQueue);
        ConfigException.require(webhookMaxAttempts >= 1 && webhookMaxAttempts <= 20, "webhook.max_attempts", "1 to 20",
                webhookMaxAttempts);
        ConfigException.require(!webhookBackoff.isNegative(), "webhook.backoff", ">= 0s", webhookBackoff);
    }

    /**
     * Every 10 s; 429s above 5% of at least 20 attempts; a queue above 20 still growing; a deployment
     * bucket below a tenth for 15 minutes; input a quarter off its estimate over at least 10,000
     * tokens; a ramp on one stage for 10 minutes; no webhook (100 queued, 5 tries from 1 s).
     */
    public static AlertSettings defaults() {
        return new AlertSettings(Duration.ofSeconds(10), 0.05, 20, 20, 0.1, Duration.ofMinutes(15), 1.25, 10_000,
                Duration.ofMinutes(10), Optional.empty(), 100, 5, Duration.ofSeconds(1));
    }

    /** A copy sending to {@code url}. */
    public AlertSettings withWebhook(URI url) {
        return new AlertSettings(evaluateEvery, provider429Ratio, provider429MinAttempts, queueDepth, bucketLowFraction,
                bucketLowFor, estimateDrift, estimateMinTokens, rampStalledFor, Optional.of(url), webhookMaxQueue,
                webhookMaxAttempts, webhookBackoff);
    }
}
