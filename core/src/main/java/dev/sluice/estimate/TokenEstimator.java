package dev.sluice.estimate;

import dev.sluice.time.NanoClock;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Quotes the tokens a request will cost before it is sent, and learns from what providers report
 * once it settles.
 *
 * <ul>
 *   <li><b>Input.</b> The profile's {@link Tokenizer} counts message texts, roles and names, tool
 *       schemas, plus fixed framing per message, name, tool, image and reply
 *       ({@link EstimatorConfig}); a calibrated profile uses a character heuristic instead. That
 *       base count is multiplied by a ratio learned per profile from reported prompt tokens (a
 *       prior until {@code minRatioSamples} arrived) and rounded up.</li>
 *   <li><b>Output.</b> {@code min(ceiling, p95)} of the route's recent output tokens, where the
 *       ceiling is the request's {@code max_tokens} or else the profile's
 *       {@code defaultMaxOutputTokens}; with fewer than {@code minOutputSamples} samples,
 *       {@code min(ceiling, coldStartOutputTokens)}.</li>
 *   <li><b>Cache reads.</b> The share of the prompt read from the provider's cache, learned per
 *       route; it is subtracted from the input charge only for profiles whose provider does not
 *       count cache reads against the input limit.</li>
 * </ul>
 *
 * <p>Thread-safe. Learned state lives in one cell per profile and per route: threads contend only
 * when they learn for the same profile or route, and estimating takes no lock except, once per
 * window age, to retire an aged output window. Routes are kept for the estimator's lifetime, so
 * route keys should come from configuration (profile, traffic class), never from request data.
 */
public final class TokenEstimator {

    private record RouteKey(String profileId, String route) {
    }

    private final EstimatorConfig config;
    private final NanoClock clock;
    private final InputCalibration calibration;
    private final ConcurrentHashMap<RouteKey, RouteState> routes = new ConcurrentHashMap<>();

    /**
     * An estimator that has learned nothing yet.
     *
     * @param clock ages output-history windows
     */
    public TokenEstimator(EstimatorConfig config, NanoClock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.calibration = new InputCalibration(config);
    }

    /**
     * Quotes {@code prompt} for {@code profile} on {@code route}. Counting the prompt's text is the
     * main cost; the first count with a tokenizer also loads its vocabulary.
     *
     * @param route any key that groups requests with similar answers, e.g. profile and traffic class
     */
    public TokenEstimate estimate(EstimatorProfile profile, String route, PromptShape prompt) {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(prompt, "prompt");
        long base = PromptCounter.baseTokens(profile.tokenizer(), prompt, config);
        long promptTokens = scaleUp(base, calibration.ratio(profile.profileId(), profile.tokenizer()));

        RouteState state = routes.get(new RouteKey(profile.profileId(), route));
        long expectedCacheRead = (long) Math.floor(promptTokens * cachedFraction(state));
        long input = profile.cacheReadCountsAgainstInputLimit() ? promptTokens : promptTokens - expectedCacheRead;

        long ceiling = prompt.maxOutputTokens().isPresent()
                ? prompt.maxOutputTokens().getAsInt()
                : profile.defaultMaxOutputTokens();
        long wanted = config.coldStartOutputTokens();
        if (profile.outputReservation() == OutputReservation.MAX_TOKENS) {
            wanted = ceiling;
        } else if (state != null) {
            OutputWindow.Summary history = state.output().summary(clock.nanos());
            if (history.samples() >= config.minOutputSamples()) {
                wanted = history.p95();
            }
        }
        return new TokenEstimate(input, Math.min(ceiling, wanted), expectedCacheRead, promptTokens, base,
                profile.tokenizer());
    }

    /**
     * Learns from a settled request: the input ratio of the estimate's tokenizer for the profile,
     * and the output history and cached fraction of the route. Call it only with usage the
     * provider reported, never with the estimate itself.
     *
     * @param estimated the estimate made for this request by {@link #estimate}
     */
    public void learn(EstimatorProfile profile, String route, TokenEstimate estimated, ActualTokens actual) {
        Objects.requireNonNull(actual, "actual");
        calibration.learn(profile.profileId(), estimated.method(), estimated.baseTokens(), actual.inputTokens());
        RouteKey key = new RouteKey(profile.profileId(), Objects.requireNonNull(route, "route"));
        routes.computeIfAbsent(key, k -> new RouteState(config, clock.nanos()))
                .learn(actual, config.smoothing(), clock.nanos());
    }

    /**
     * What has been learned for {@code profile} and {@code route}, every settlement counted. An
     * estimate reads output percentiles made again only as the history grows by a 32nd, so it may
     * use slightly older ones than these.
     */
    public EstimatorStats stats(EstimatorProfile profile, String route) {
        String profileId = profile.profileId();
        RouteState state = routes.get(new RouteKey(profileId, route));
        OutputWindow.Summary history = state == null ? null : state.output().exactSummary(clock.nanos());
        boolean hasOutput = history != null && history.samples() > 0;
        return new EstimatorStats(profileId, route,
                calibration.ratio(profileId, profile.tokenizer()),
                calibration.samples(profileId, profile.tokenizer()),
                hasOutput ? history.samples() : 0,
                hasOutput ? OptionalLong.of(history.p50()) : OptionalLong.empty(),
                hasOutput ? OptionalLong.of(history.p95()) : OptionalLong.empty(),
                cachedFraction(state),
                state == null ? 0 : state.cachedFraction().samples());
    }

    /**
     * The characters that quoting {@code prompt} for {@code profile} would run through a tokenizer:
     * its texts, names and tool definitions, less those whose counts are remembered from earlier
     * prompts (a repeated system prompt costs nothing to count again). A caller on a thread that
     * must not be held weighs this before quoting in place.
     */
    public long charsToCount(EstimatorProfile profile, PromptShape prompt) {
        Tokenizer t = profile.tokenizer();
        return prompt.sumOverTexts(text -> TextCounter.charsToCount(t, text));
    }

    /**
     * The raw token count of {@code text}, with no framing and no learned correction; for
     * {@link Tokenizer#CALIBRATED} the character heuristic. For count-tokens endpoints, and to
     * load a tokenizer's vocabulary at startup rather than on the first request.
     */
    public long countTokens(Tokenizer tokenizer, String text) {
        return TextCounter.count(Objects.requireNonNull(tokenizer, "tokenizer"), Objects.requireNonNull(text, "text"));
    }

    private double cachedFraction(RouteState state) {
        if (state == null) {
            return 0.0;
        }
        Ewma learned = state.cachedFraction();
        return learned.samples() >= config.minCacheSamples() ? learned.value() : 0.0;
    }

    /**
     * Rounds up, after shaving off floating-point noise so that 1000 x 1.3 is 1300, not 1301.
     */
    private static long scaleUp(long base, double ratio) {
        return (long) Math.ceil(base * ratio * (1.0 - 1e-12));
    }
}
