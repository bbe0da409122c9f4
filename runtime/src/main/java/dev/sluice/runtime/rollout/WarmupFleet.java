package dev.sluice.runtime.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How the replicas sharing a store judge a warm-up's minute on the fleet's attempts, as
 * {@link RolloutFleet} judges a rollout's interval: every replica publishes, in the same exchange,
 * the tenant's attempts and provider 429s it saw in the minute so far ({@link Warmups#published});
 * the replica with the lowest id among those publishing a warm-up judges its minute alone on the
 * sum of every replica's at the same state version ({@link Warmups#judgeFleet}), and its decision
 * reaches the others through the journal. So {@code min_requests} and the 429 threshold are the
 * fleet's, not each replica's share of them. The warm-up's rate needs no exchange: the tenant's
 * bucket is in the store. Pure: the exchange itself is the caller's.
 *
 * <p>Its lines join the rollouts' publication ({@link RolloutFleet#publication}): {@code +warmup
 * TAB id TAB version TAB attempts TAB throttled}. Five fields: a build that reads rollout lines
 * of four skips them.
 */
public final class WarmupFleet {

    private static final String WARMUP = "+warmup";

    private WarmupFleet() {}

    /** The lines of {@code published}, each after a line break: to append to the rollouts' publication. */
    public static String lines(List<Warmups.Published> published) {
        StringBuilder b = new StringBuilder();
        for (Warmups.Published p : published) {
            b.append('\n').append(WARMUP).append('\t').append(p.id()).append('\t').append(p.version()).append('\t')
                    .append(p.attempts()).append('\t').append(p.throttled());
        }
        return b.toString();
    }

    /** What a publication says of each warm-up, by id; lines that cannot be read are left out. */
    public static Map<String, Warmups.Published> parse(String publication) {
        Map<String, Warmups.Published> out = new TreeMap<>();
        String[] lines = publication.split("\n");
        if (lines.length == 0 || !lines[0].equals("v1")) {
            return out;
        }
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t");
            if (f.length != 5 || !f[0].equals(WARMUP)) {
                continue;
            }
            try {
                out.put(f[1], new Warmups.Published(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]),
                        Long.parseLong(f[4])));
            } catch (RuntimeException unreadable) {
                // a line this build cannot read is no figure: the sum goes without it
            }
        }
        return out;
    }

    /**
     * One round on this replica ({@code self}), after the exchange: judges each warm-up of
     * {@code own} (what was just published) that this replica decides, on the sum of its own
     * minute and those of {@code others} (replica id to its publication, this one's left out) at
     * the same version.
     *
     * @return the decisions made
     */
    public static List<WarmupDecision> round(Warmups warmups, String self, List<Warmups.Published> own,
            Map<String, String> others) {
        Map<String, Map<String, Warmups.Published>> read = new TreeMap<>();
        others.forEach((replica, text) -> read.put(replica, parse(text)));
        List<WarmupDecision> out = new ArrayList<>();
        for (Warmups.Published mine : own) {
            if (!decides(self, mine.id(), read)) {
                continue;
            }
            long attempts = mine.attempts();
            long throttled = mine.throttled();
            for (Map<String, Warmups.Published> theirs : read.values()) {
                Warmups.Published p = theirs.get(mine.id());
                if (p != null && p.version() == mine.version()) {
                    attempts += p.attempts();
                    throttled += p.throttled();
                }
            }
            Optional<WarmupDecision> d = warmups.judgeFleet(mine.id(), mine.version(), attempts, throttled);
            d.ifPresent(out::add);
        }
        return out;
    }

    private static boolean decides(String self, String id, Map<String, Map<String, Warmups.Published>> others) {
        for (Map.Entry<String, Map<String, Warmups.Published>> o : others.entrySet()) {
            if (o.getKey().compareTo(self) < 0 && o.getValue().containsKey(id)) {
                return false;
            }
        }
        return true;
    }
}
