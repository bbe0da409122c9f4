package dev.sluice.runtime.routing;

import dev.sluice.runtime.config.Capabilities;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.FallbackSettings;
import dev.sluice.runtime.request.RequestNeeds;
import dev.sluice.runtime.request.RequestPlan;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a request may run on a deployment other than its first choice. Pure: the request's
 * plan (class, needs, operation), its tenant's region pin, the profile's {@link FallbackSettings}
 * and both deployments' {@link Capabilities} in; a verdict naming the rule out. Running elsewhere
 * can change what the answer is (context length, tool calls, structured output, residency,
 * retention, cost), so every rule must allow it; the first that does not is the answer's reason.
 *
 * <p>The rules, in the order they are asked:
 * <ol>
 *   <li>{@code class}: the request's class is one the profile lets fall back (by default all but batch);</li>
 *   <li>{@code tenant_region}: a tenant pinned to a region runs only on deployments declared in it;</li>
 *   <li>{@code same_region}: where the profile asks it, the region of the first choice is kept;</li>
 *   <li>{@code retention}: the target keeps data no longer than the first choice;</li>
 *   <li>{@code max_cost_ratio}: the target costs at most the profile's ratio of the first choice;</li>
 *   <li>{@code context_window}: prompt and requested output fit the target's window;</li>
 *   <li>{@code max_output}: the requested output fits the target's answer size;</li>
 *   <li>{@code tools}, {@code parallel_tools}, {@code json_schema}, {@code vision}: what the
 *       request uses, the target offers;</li>
 *   <li>{@code translation}: another provider family only through Sluice's translation of chat
 *       requests, and only when it carries every feature the request uses (it carries tools and
 *       images to Anthropic and Gemini, and a JSON schema to Gemini; Anthropic has no
 *       {@code response_format}).</li>
 * </ol>
 */
public final class FallbackPolicy {

    /** The operations Sluice translates into another provider family's request. */
    static final Set<String> TRANSLATED_OPERATIONS = Set.of("openai.chat", "openai.responses");

    private FallbackPolicy() {}

    /** The answer: allowed, or forbidden by a named rule with a sentence for the client. */
    public sealed interface Verdict {

        /** May run there. */
        record Allowed() implements Verdict {}

        /** May not: {@code rule} names the rule, {@code reason} says why in one sentence. */
        record Forbidden(String rule, String reason) implements Verdict {
            public Forbidden {
                Objects.requireNonNull(rule, "rule");
                Objects.requireNonNull(reason, "reason");
            }
        }
    }

    static final Verdict ALLOWED = new Verdict.Allowed();

    /**
     * Whether {@code plan} may run on {@code to} instead of its first choice {@code from}.
     *
     * @param tenantRegion the region the plan's tenant is pinned to, if any
     */
    public static Verdict judge(RequestPlan plan, Optional<String> tenantRegion, FallbackSettings settings,
            DeploymentConfig from, DeploymentConfig to) {
        Capabilities f = from.capabilities();
        Capabilities t = to.capabilities();
        RequestNeeds needs = plan.needs();
        if (!settings.classes().contains(plan.trafficClass())) {
            return forbidden("class", plan.trafficClass().wireName() + " requests of profile " + plan.profile().id()
                    + " never run on another deployment");
        }
        if (tenantRegion.isPresent() && !tenantRegion.equals(t.region())) {
            return forbidden("tenant_region", "tenant " + plan.caller().tenant() + " is pinned to region "
                    + tenantRegion.get() + " and deployment " + to.id() + " is " + where(t));
        }
        if (settings.sameRegion() && !f.region().equals(t.region())) {
            return forbidden("same_region", "profile " + plan.profile().id() + " falls back within "
                    + where(f) + " only and deployment " + to.id() + " is " + where(t));
        }
        if (t.retention().looserThan(f.retention())) {
            return forbidden("retention", "deployment " + to.id() + " keeps data longer (" + t.retention().configName()
                    + ") than " + from.id() + " (" + f.retention().configName() + ")");
        }
        double ratio = t.relativeCost() / f.relativeCost();
        if (ratio > settings.maxCostRatio()) {
            return forbidden("max_cost_ratio", "deployment " + to.id() + " costs " + ratio + "x " + from.id()
                    + ", above profile " + plan.profile().id() + "'s bound of " + settings.maxCostRatio() + "x");
        }
        if (t.contextWindow().isPresent()
                && needs.promptTokens() + needs.maxOutputTokens() > t.contextWindow().getAsLong()) {
            return forbidden("context_window", "the request needs " + (needs.promptTokens() + needs.maxOutputTokens())
                    + " tokens of context and deployment " + to.id() + " has " + t.contextWindow().getAsLong());
        }
        if (t.maxOutputTokens().isPresent() && needs.maxOutputTokens() > t.maxOutputTokens().getAsLong()) {
            return forbidden("max_output", "the request asks for " + needs.maxOutputTokens()
                    + " output tokens and deployment " + to.id() + " answers at most " + t.maxOutputTokens().getAsLong());
        }
        Optional<String> missing = needs.tools() && !t.tools() ? Optional.of("tools")
                : needs.parallelTools() && !t.parallelTools() ? Optional.of("parallel_tools")
                : needs.jsonSchema() && !t.jsonSchema() ? Optional.of("json_schema")
                : needs.images() && !t.vision() ? Optional.of("vision")
                : Optional.empty();
        if (missing.isPresent()) {
            return forbidden(missing.get(), "the request uses " + missing.get().replace('_', ' ')
                    + " and deployment " + to.id() + " does not offer it");
        }
        if (family(from.kind()) != family(to.kind())) {
            if (!TRANSLATED_OPERATIONS.contains(plan.operation())) {
                return forbidden("translation", plan.operation() + " is not translated for "
                        + to.kind().wireName() + " deployment " + to.id());
            }
            if (needs.jsonSchema() && to.kind() == DeploymentKind.ANTHROPIC) {
                return forbidden("translation", "the translation to " + to.kind().wireName()
                        + " does not carry a JSON schema");
            }
        }
        return ALLOWED;
    }

    /** Deployments of one family take one another's requests as they are. */
    static DeploymentKind family(DeploymentKind k) {
        return k.openAiFamily() ? DeploymentKind.OPENAI : k;
    }

    private static String where(Capabilities c) {
        return c.region().map(r -> "in " + r).orElse("in no declared region");
    }

    private static Verdict forbidden(String rule, String reason) {
        return new Verdict.Forbidden(rule, reason);
    }
}
