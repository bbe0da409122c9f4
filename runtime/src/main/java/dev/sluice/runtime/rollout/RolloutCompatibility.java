package dev.sluice.runtime.rollout;

import dev.sluice.config.ConfigException;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.FallbackSettings;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.RolloutConfig;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.Caller;
import dev.sluice.runtime.request.RequestPlan;
import dev.sluice.runtime.routing.FallbackPolicy;
import java.util.EnumSet;
import java.util.Optional;

/**
 * Whether a request may run on a rollout's target: the profile's {@link FallbackPolicy}, asked as
 * for a fallback from the source, but for every class (the class rule says which requests may be
 * moved by a failure; a rollout moves traffic on purpose). A request the policy keeps off the
 * target (it uses tools the target lacks, its tenant is pinned elsewhere) stays on the source.
 */
public final class RolloutCompatibility {

    private RolloutCompatibility() {}

    /**
     * Rejects, with the field path, a rollout whose target the profile's policy forbids for a
     * plain request of the profile: the rules that do not depend on the request (region,
     * retention, cost, provider family).
     */
    public static void check(SluiceConfig config) {
        for (RolloutConfig r : config.rollouts()) {
            check(config, r, "rollouts." + r.id() + ".to");
        }
    }

    /** {@link #check(SluiceConfig)} for one rollout, {@code path} naming its target's field. */
    public static void check(SluiceConfig config, RolloutConfig r, String path) {
        ProfileConfig p = config.profiles().get(r.profile());
        DeploymentConfig from = config.deployments().get(r.from());
        DeploymentConfig to = config.deployments().get(r.to());
        String operation = p.task() == ProfileConfig.Task.CHAT ? "openai.chat" : "openai.embeddings";
        RequestPlan probe = new RequestPlan("rollout-check", operation, new Caller("-", "-", "-", "-"), p,
                TrafficClass.INTERACTIVE, Long.MAX_VALUE, new TokenEstimate(1, 0, 0, 1, 1, Tokenizer.O200K_BASE),
                false);
        if (judge(probe, Optional.empty(), p, from, to) instanceof FallbackPolicy.Verdict.Forbidden f) {
            throw new ConfigException(path, "a deployment profile " + p.id() + "'s fallback policy allows",
                    "\"" + to.id() + "\", forbidden by rule " + f.rule() + ": " + f.reason());
        }
    }

    /** The policy's verdict on running {@code plan} on {@code to} instead of {@code from}. */
    static FallbackPolicy.Verdict judge(RequestPlan plan, Optional<String> tenantRegion, ProfileConfig p,
            DeploymentConfig from, DeploymentConfig to) {
        FallbackSettings s = p.fallback();
        FallbackSettings anyClass = new FallbackSettings(EnumSet.allOf(TrafficClass.class), s.maxCostRatio(),
                s.sameRegion());
        return FallbackPolicy.judge(plan, tenantRegion, anyClass, from, to);
    }
}
