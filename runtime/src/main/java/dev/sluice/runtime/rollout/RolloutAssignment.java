package dev.sluice.runtime.rollout;

import dev.sluice.runtime.config.RolloutConfig;
import java.util.List;

/**
 * Which side of a rollout a request is on. Pure. A request's sticky key (its tenant, or its API
 * key) hashes, with the rollout's name, to a slot in [0, 10 000); the request is assigned to the
 * target while its slot is below the stage's share in hundredths of a percent. Since the shares
 * only grow, a key on the target stays there when the share rises.
 *
 * <p>With {@code tenants_first}, the steps are walked twice: over the listed tenants only (every
 * other tenant stays on the source), then over every tenant, the listed ones keeping the share
 * of the last step.
 */
public final class RolloutAssignment {

    /** Slots per rollout: a share is resolved to a hundredth of a percent. */
    public static final int SLOTS = 10_000;

    private RolloutAssignment() {}

    /**
     * One stage of a rollout: the target's share, in percent, of the keys of tenants not listed
     * first and of those listed first. Both only grow from one stage to the next.
     */
    public record Stage(double percent, double listedPercent) {

        /** The share of the stage in force for a tenant listed first or not. */
        public double percentFor(boolean listed) {
            return listed ? listedPercent : percent;
        }
    }

    /** The stages of {@code config}, in order. */
    public static List<Stage> stages(RolloutConfig config) {
        List<Stage> out = new java.util.ArrayList<>();
        List<Double> steps = config.steps();
        if (!config.tenantsFirst().isEmpty()) {
            steps.forEach(s -> out.add(new Stage(0, s)));
        }
        double listedAtLeast = config.tenantsFirst().isEmpty() ? 0 : steps.get(steps.size() - 1);
        steps.forEach(s -> out.add(new Stage(s, Math.max(s, listedAtLeast))));
        return List.copyOf(out);
    }

    /** The slot of {@code stickyKey} in rollout {@code rolloutId}: deterministic, evenly spread. */
    public static int slot(String rolloutId, String stickyKey) {
        long h = (rolloutId.hashCode() * 0x9E3779B97F4A7C15L) ^ stickyKey.hashCode();
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        h ^= h >>> 29;
        return (int) Math.floorMod(h, (long) SLOTS);
    }

    /**
     * Whether a request of a tenant ({@code listed} when it is in {@code tenants_first}) whose key
     * has {@code slot} is assigned to the target at {@code stage}.
     */
    public static boolean onTarget(Stage stage, boolean listed, int slot) {
        return below(slot, stage.percentFor(listed));
    }

    private static boolean below(int slot, double percent) {
        return slot < Math.round(percent * (SLOTS / 100.0));
    }
}
