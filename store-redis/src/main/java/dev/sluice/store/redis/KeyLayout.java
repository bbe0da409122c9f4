package dev.sluice.store.redis;

import dev.sluice.limits.Scope;
import dev.sluice.store.BucketPlan;

/**
 * Key names. Every key is {@code <namespace>:{<tag>}:<kind>:<name>}; the part in braces is the
 * Redis Cluster hash tag, so keys with the same tag share a slot. Scope ids may hold any
 * character: they come after the tag, where braces no longer matter.
 */
final class KeyLayout {

    final String namespace;
    private final SlotGrouping grouping;

    KeyLayout(String namespace, SlotGrouping grouping) {
        this.namespace = namespace;
        this.grouping = grouping;
    }

    /** The tag of a bucket; braces in a configured tag would end the tag early, so they are replaced. */
    String tagOf(Scope scope) {
        String t = grouping.tag(scope);
        return t.isEmpty() ? namespace : t.replace('{', '(').replace('}', ')');
    }

    String slot(String tag) {
        return namespace + ":{" + tag + "}:";
    }

    String bucket(String tag, BucketPlan plan) {
        return slot(tag) + "b:" + plan.key();
    }

    String leaseSet(String tag) {
        return slot(tag) + "leases";
    }

    /**
     * Parts of leases whose path spans slots, in every group but the first: kept apart so that
     * counting the lease sets counts each lease once.
     */
    String leasePartSet(String tag) {
        return slot(tag) + "leaseparts";
    }

    String leasePrefix(String tag) {
        return slot(tag) + "l:";
    }

    String share(String tag, BucketPlan plan) {
        return slot(tag) + "share:" + plan.key();
    }

    /** Every replica's latest control proposal per dimension of a bucket: what its factor and pause are merged from. */
    String controls(String tag, BucketPlan plan) {
        return slot(tag) + "ctl:" + plan.key();
    }

    /** Every live replica's publication for the fleet view (queued demand and modes per deployment). */
    String fleet() {
        return slot(namespace) + "fleet";
    }

    /** Every live replica's tally of each running rollout's interval ({@link RedisRolloutFigures}). */
    String rollouts() {
        return slot(namespace) + "rollouts";
    }

    /** Format version of the namespace. */
    String meta() {
        return slot(namespace) + "meta";
    }

    /** Every tag that has held leases, so a sweep finds all of them. */
    String groups() {
        return slot(namespace) + "groups";
    }

    String replicas() {
        return slot(namespace) + "replicas";
    }

    /** Every admin change any replica made, oldest first ({@link RedisChangeRelay}). */
    String changes() {
        return slot(namespace) + "changes";
    }

    /** One tenant's refunds of invalid requests in its current minute ({@link RedisInvalidRefunds}). */
    String invalidRefunds(String org, String tenant) {
        return slot(namespace) + "invalid:" + org + "/" + tenant;
    }

    String ramp() {
        return slot(namespace) + "ramp";
    }
}
