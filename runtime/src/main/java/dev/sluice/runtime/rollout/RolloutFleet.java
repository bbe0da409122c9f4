package dev.sluice.runtime.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How the replicas sharing a store judge a rollout on the fleet's figures, not each on its own
 * requests. Every replica publishes, off the request path, its tally of each running rollout's
 * interval so far ({@link Rollouts#published}); one exchange writes it and reads the others' fresh
 * publications (the store's part: Redis, or the simulator's shared table). Then, per rollout, the
 * replica with the lowest id among those publishing it decides alone: it adds up the tallies of
 * every replica at the same state version (the same interval) and judges the sum
 * ({@link Rollouts#judgeFleet}); its decision reaches the others through the journal, as an
 * operator's does. A replica at another version (it has not read the latest decision yet) is left
 * out of that sum. Should the deciding replica stop, its publication goes stale and the next id
 * decides. Pure: the exchange itself is the caller's.
 *
 * <p>A publication is text: {@code v1}, then a line per rollout: {@code id TAB version TAB
 * requests inputTokens outputTokens (the last minute's demand) TAB tally} ({@link IntervalTally#encode}).
 */
public final class RolloutFleet {

    private RolloutFleet() {}

    /** This replica's publication of {@code published}. */
    public static String publication(List<Rollouts.Published> published) {
        StringBuilder b = new StringBuilder("v1");
        for (Rollouts.Published p : published) {
            b.append('\n').append(p.id()).append('\t').append(p.version()).append('\t').append(p.demand().requests())
                    .append(' ').append(p.demand().inputTokens()).append(' ').append(p.demand().outputTokens())
                    .append('\t').append(p.tally().encode());
        }
        return b.toString();
    }

    /** What a publication says, by rollout id; lines that cannot be read (another build's) are left out. */
    public static Map<String, Rollouts.Published> parse(String publication) {
        Map<String, Rollouts.Published> out = new TreeMap<>();
        String[] lines = publication.split("\n");
        if (lines.length == 0 || !lines[0].equals("v1")) {
            return out;
        }
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t");
            if (f.length != 4) {
                continue;
            }
            try {
                String[] d = f[2].split(" ");
                out.put(f[0], new Rollouts.Published(f[0], Long.parseLong(f[1]), IntervalTally.decode(f[3]),
                        new RolloutAnalysis.Demand(Long.parseLong(d[0]), Long.parseLong(d[1]), Long.parseLong(d[2]))));
            } catch (RuntimeException unreadable) {
                // a line this build cannot read is no figure: the sum goes without it
            }
        }
        return out;
    }

    /**
     * One round on this replica ({@code self}), after the exchange: judges each rollout of
     * {@code own} (what was just published) that this replica decides, on the sum of its own tally
     * and those of {@code others} (replica id to its publication, this one's left out) at the same
     * version.
     *
     * @return the decisions made
     */
    public static List<RolloutDecision> round(Rollouts rollouts, String self, List<Rollouts.Published> own,
            Map<String, String> others) {
        Map<String, Map<String, Rollouts.Published>> read = new TreeMap<>();
        others.forEach((replica, text) -> read.put(replica, parse(text)));
        List<RolloutDecision> out = new ArrayList<>();
        for (Rollouts.Published mine : own) {
            if (!decides(self, mine.id(), read)) {
                continue;
            }
            IntervalTally tally = mine.tally();
            RolloutAnalysis.Demand demand = mine.demand();
            for (Map<String, Rollouts.Published> theirs : read.values()) {
                Rollouts.Published p = theirs.get(mine.id());
                if (p != null && p.version() == mine.version()) {
                    tally = tally.plus(p.tally());
                    demand = demand.plus(p.demand());
                }
            }
            Optional<RolloutDecision> d = rollouts.judgeFleet(mine.id(), mine.version(), tally, demand);
            d.ifPresent(out::add);
        }
        return out;
    }

    /** Whether {@code self} has the lowest id among the replicas publishing rollout {@code id}. */
    static boolean decides(String self, String id, Map<String, Map<String, Rollouts.Published>> others) {
        for (Map.Entry<String, Map<String, Rollouts.Published>> o : others.entrySet()) {
            if (o.getKey().compareTo(self) < 0 && o.getValue().containsKey(id)) {
                return false;
            }
        }
        return true;
    }
}
