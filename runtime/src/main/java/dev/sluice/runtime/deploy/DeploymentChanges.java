package dev.sluice.runtime.deploy;

import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.Secret;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a configuration change does to the deployments, by id. Pure.
 *
 * <ul>
 *   <li>{@code added}: in the next configuration only. Its client, retry budget, adaptive
 *       controller and lane are made; routing sends to it once a profile names it.</li>
 *   <li>{@code removed}: in the running one only. New attempts stop going to it at once; its
 *       attempts in flight finish and settle; requests waiting for it are routed again.</li>
 *   <li>{@code replaced}: in both, with another connection (dialect, base URL, credential, Azure
 *       deployment or version, adaptive tuning, ramp, failure policy): a removal of the running
 *       version and an addition of the next under the same id. Its attempts in flight finish on the
 *       running version; every attempt admitted from the change on, those that waited through it
 *       too, runs on the next. Its buckets and its queue are those of its scope, so they keep their
 *       state (a lowered limit applies to new admissions only). Its adaptive controller starts over
 *       (modes, multipliers, the ramp from its first stage) only when it talks to another provider
 *       or is tuned otherwise ({@link #sameProvider}); a rotated credential keeps it.</li>
 * </ul>
 * A deployment whose limits, capabilities, scope labels or provider scopes alone change is none
 * of these: it is changed in place, as any limit is.
 *
 * @param added ids of deployments added, in the next configuration's order
 * @param removed ids of deployments removed, in the running configuration's order
 * @param replaced ids of deployments replaced, in the running configuration's order
 */
public record DeploymentChanges(Set<String> added, Set<String> removed, Set<String> replaced) {

    public DeploymentChanges {
        added = Set.copyOf(added);
        removed = Set.copyOf(removed);
        replaced = Set.copyOf(replaced);
    }

    /** What changing {@code running} to {@code next} does. */
    public static DeploymentChanges between(Map<String, DeploymentConfig> running, Map<String, DeploymentConfig> next) {
        Set<String> added = new LinkedHashSet<>();
        Set<String> removed = new LinkedHashSet<>();
        Set<String> replaced = new LinkedHashSet<>();
        for (DeploymentConfig d : running.values()) {
            DeploymentConfig n = next.get(d.id());
            if (n == null) {
                removed.add(d.id());
            } else if (!sameConnection(d, n)) {
                replaced.add(d.id());
            }
        }
        for (String id : next.keySet()) {
            if (!running.containsKey(id)) {
                added.add(id);
            }
        }
        return new DeploymentChanges(added, removed, replaced);
    }

    /** Whether nothing is added, removed or replaced. */
    public boolean none() {
        return added.isEmpty() && removed.isEmpty() && replaced.isEmpty();
    }

    /**
     * The ids of replaced deployments whose adaptive controller starts over: those that now talk
     * to another provider or are tuned otherwise, by {@code running} and {@code next}.
     */
    public Set<String> controlStartsOver(Map<String, DeploymentConfig> running, Map<String, DeploymentConfig> next) {
        Set<String> out = new LinkedHashSet<>();
        for (String id : replaced) {
            if (!sameProvider(running.get(id), next.get(id))) {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * Whether {@code a} and {@code b} send to the same provider endpoint (dialect and base URL)
     * under the same adaptive tuning and ramp: what the adaptive controller learned of {@code a}
     * holds for {@code b}.
     */
    public static boolean sameProvider(DeploymentConfig a, DeploymentConfig b) {
        return a.kind() == b.kind() && a.baseUrl().equals(b.baseUrl()) && a.adaptive().equals(b.adaptive())
                && a.ramp().equals(b.ramp());
    }

    /** The ids whose running version goes: removed and replaced. */
    public Set<String> retired() {
        Set<String> out = new LinkedHashSet<>(removed);
        out.addAll(replaced);
        return out;
    }

    /** The ids that get a new version: added and replaced. */
    public Set<String> made() {
        Set<String> out = new LinkedHashSet<>(added);
        out.addAll(replaced);
        return out;
    }

    /**
     * Whether {@code a} and {@code b} connect and behave alike: every field but those a change
     * puts in force in place (limits, capabilities, scope labels, provider scopes). A credential is
     * compared by what it holds, since it has no equality of its own.
     */
    public static boolean sameConnection(DeploymentConfig a, DeploymentConfig b) {
        return a.kind() == b.kind() && a.baseUrl().equals(b.baseUrl()) && a.apiKeyEnv().equals(b.apiKeyEnv())
                && sameSecret(a, b) && a.azureDeployment().equals(b.azureDeployment())
                && a.apiVersion().equals(b.apiVersion()) && a.adaptive().equals(b.adaptive())
                && a.ramp().equals(b.ramp()) && a.failurePolicy().equals(b.failurePolicy());
    }

    private static boolean sameSecret(DeploymentConfig a, DeploymentConfig b) {
        if (a.apiKey().isPresent() != b.apiKey().isPresent()) {
            return false;
        }
        return a.apiKey().isEmpty() || Objects.equals(reveal(a.apiKey().get()), reveal(b.apiKey().get()));
    }

    private static String reveal(Secret s) {
        return s.reveal();
    }
}
