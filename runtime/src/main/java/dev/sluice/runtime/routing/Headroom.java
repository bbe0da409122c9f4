package dev.sluice.runtime.routing;

/**
 * Whether a deployment could take the request now without waiting, by the governor's own
 * buckets ({@code QuotaGovernor.hasHeadroom}): how the routing policy chooses among a profile's
 * deployments without trying them.
 */
@FunctionalInterface
public interface Headroom {

    /** Every deployment has room: for choices that do not depend on load. */
    Headroom EVERYWHERE = deployment -> true;

    boolean has(String deployment);
}
