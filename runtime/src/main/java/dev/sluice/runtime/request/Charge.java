package dev.sluice.runtime.request;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.governor.Usage;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.Price;
import dev.sluice.runtime.config.ProfileConfig;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What an ended attempt is charged: the one rule, per outcome, by which a reservation is settled
 * or released. Pure.
 *
 * <ul>
 *   <li>answered: the provider's usage (cache reads counted as input where the profile says the
 *       provider counts them against its input limit); a count without the provider's input is
 *       charged the estimated input, since the prompt was sent;</li>
 *   <li>refused by the provider (429 or another 4xx) or failed with an error status: no tokens,
 *       only the request, which the provider counted;</li>
 *   <li>refused as invalid (400, 404, 422: the request itself was wrong, nothing was generated):
 *       no tokens and no cost, and the request only where the attempt's provider counts it
 *       ({@link DeploymentKind#countsInvalidRequests()}) or the tenant has used its allowance of
 *       such refunds ({@link InvalidRefunds}, so that invalid requests cannot be sent without
 *       limit); decided once the deployment is known ({@link Invalid#on});</li>
 *   <li>failed without a status (timeout, reset, broken stream) or left by its client after it was
 *       sent: what arrived, or else the estimated input, since the provider read the prompt;</li>
 *   <li>never sent, or left by its client before it was sent: released whole, unless an earlier
 *       attempt on the same reservation reached the provider, when no tokens are charged.</li>
 * </ul>
 *
 * <p>Every charge is also priced ({@link Price}, the attempt's deployment and model): input, output
 * and cache reads each at their own price, which settles the {@code daily_cost} and {@code monthly_cost} caps.
 */
sealed interface Charge {

    /** Settle with {@code usage}. */
    record Settle(Usage usage) implements Charge {}

    /** Give everything back. */
    record Release() implements Charge {}

    /** Refused as invalid: settled as {@link #on} the attempt's deployment says. */
    record Invalid() implements Charge {

        /**
         * The settlement on a deployment of {@code kind}: the request alone if it counts it, else
         * nothing while {@code refund} (the tenant's allowance, {@link InvalidRefunds}) lasts, and
         * the request alone beyond it.
         */
        Settle on(DeploymentKind kind, BooleanSupplier refund) {
            return new Settle(kind.countsInvalidRequests() || !refund.getAsBoolean() ? NOTHING : Usage.UNCOUNTED);
        }
    }

    Usage NOTHING = new Usage(0, 0);

    static Charge of(AttemptOutcome outcome, TokenEstimate estimate, ProfileConfig profile, Price price,
            boolean reservationUsed) {
        return switch (outcome) {
            case AttemptOutcome.Answered a -> new Settle(usage(a.usage(), estimate, profile, price));
            case AttemptOutcome.Throttled t -> new Settle(NOTHING);
            case AttemptOutcome.Refused r -> refused(r);
            case AttemptOutcome.Failed f -> f.produced().isPresent()
                    ? new Settle(usage(f.produced().get(), estimate, profile, price))
                    : new Settle(f.signal().httpStatus() >= 400 ? NOTHING : promptOnly(estimate, price));
            case AttemptOutcome.ClientGone g -> g.sent()
                    ? new Settle(g.produced().map(u -> usage(u, estimate, profile, price))
                            .orElse(promptOnly(estimate, price)))
                    : reservationUsed ? new Settle(NOTHING) : new Release();
            case AttemptOutcome.NeverSent n -> reservationUsed ? new Settle(NOTHING) : new Release();
        };
    }

    /** A 4xx other than 429: the request was wrong, so nothing of it is charged but what the provider counts. */
    private static Charge refused(AttemptOutcome.Refused r) {
        return switch (r.signal().httpStatus()) {
            case 400, 404, 422 -> new Invalid();
            default -> new Settle(NOTHING);
        };
    }

    /** The usage a provider's report (or Sluice's count) is charged as. */
    static Usage usage(ObservedUsage u, TokenEstimate estimate, ProfileConfig profile, Price price) {
        long in = u.inputTokens() + (profile.cacheReadCountsAgainstInputLimit() ? u.cacheReadTokens() : 0);
        long cost = price.costMicros(u.inputTokens(), u.outputTokens(), u.cacheReadTokens());
        if (!u.reportedByProvider() && in == 0) {
            in = estimate.inputTokens(); // the prompt was sent, so the provider counted it
            cost = price.costMicros(estimate.inputTokens(), u.outputTokens(), 0);
        }
        return new Usage(in, u.outputTokens(), cost);
    }

    /** The estimated prompt, which the provider read, and nothing else. */
    private static Usage promptOnly(TokenEstimate estimate, Price price) {
        return new Usage(estimate.inputTokens(), 0, price.costMicros(estimate.inputTokens(), 0, 0));
    }

    /** The usage to learn from, when the provider reported it. */
    static Optional<ObservedUsage> learnable(AttemptOutcome outcome) {
        Optional<ObservedUsage> u = switch (outcome) {
            case AttemptOutcome.Answered a -> Optional.of(a.usage());
            case AttemptOutcome.Failed f -> f.produced();
            case AttemptOutcome.ClientGone g -> g.produced();
            default -> Optional.empty();
        };
        return u.filter(ObservedUsage::reportedByProvider);
    }
}
