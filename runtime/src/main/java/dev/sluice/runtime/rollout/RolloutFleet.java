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
 * <p>The same exchange makes each rollout's growth ceiling the fleet's: every replica publishes
 * what it sent to the target this minute and the minute before ({@link Rollouts#sent}), and each
 * counts the others' with its own ({@link Rollouts#sentByOthers}). A replica sees another's sends
 * as of that one's latest publication, read at its own latest exchange: so within a minute the
 * fleet's target can pass the ceiling by at most what the other replicas sent there in the last
 * two rounds (their sends not yet seen when the last request was let through).
 *
 * <p>A publication is text: {@code v1}, then a line per rollout: {@code id TAB version TAB
 * requests inputTokens outputTokens (the last minute's demand) TAB tally} ({@link IntervalTally#encode});
 * then a line per rollout whose target was sent anything: {@code +sent TAB id TAB minute TAB
 * requests input output (this minute) TAB requests input output (the minute before)}. A build
 * that knows no {@code +sent} line skips it (it has five fields, a rollout's line four).
 */
public final class RolloutFleet {

    private RolloutFleet() {}

    private static final String SENT = "+sent";

    /** This replica's publication of {@code published} and {@code sent}. */
    public static String publication(List<Rollouts.Published> published, List<Rollouts.Sent> sent) {
        StringBuilder b = new StringBuilder("v1");
        for (Rollouts.Published p : published) {
            b.append('\n').append(p.id()).append('\t').append(p.version()).append('\t');
            counts(b, p.demand()).append('\t').append(p.tally().encode());
        }
        for (Rollouts.Sent s : sent) {
            b.append('\n').append(SENT).append('\t').append(s.id()).append('\t').append(s.minute()).append('\t');
            counts(counts(b, s.thisMinute()).append('\t'), s.minuteBefore());
        }
        return b.toString();
    }

    private static StringBuilder counts(StringBuilder b, RolloutAnalysis.Demand d) {
        return b.append(d.requests()).append(' ').append(d.inputTokens()).append(' ').append(d.outputTokens());
    }

    private static RolloutAnalysis.Demand counts(String text) {
        String[] d = text.split(" ");
        return new RolloutAnalysis.Demand(Long.parseLong(d[0]), Long.parseLong(d[1]), Long.parseLong(d[2]));
    }

    /** What a publication says each rollout's target was sent, by rollout id; lines that cannot be read are left out. */
    public static Map<String, Rollouts.Sent> parseSent(String publication) {
        Map<String, Rollouts.Sent> out = new TreeMap<>();
        String[] lines = publication.split("\n");
        if (lines.length == 0 || !lines[0].equals("v1")) {
            return out;
        }
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t");
            if (f.length != 5 || !f[0].equals(SENT)) {
                continue;
            }
            try {
                out.put(f[1], new Rollouts.Sent(f[1], Long.parseLong(f[2]), counts(f[3]), counts(f[4])));
            } catch (RuntimeException unreadable) {
                // a line this build cannot read counts nothing: the ceiling goes without it
            }
        }
        return out;
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
                out.put(f[0], new Rollouts.Published(f[0], Long.parseLong(f[1]), IntervalTally.decode(f[3]),
                        counts(f[2])));
            } catch (RuntimeException unreadable) {
                // a line this build cannot read is no figure: the sum goes without it
            }
        }
        return out;
    }

    /**
     * One round on this replica ({@code self}), after the exchange: gives the growth ceilings what
     * {@code others} (replica id to its publication, this one's left out) sent to the targets,
     * then judges each rollout of {@code own} (what was just published) that this replica decides,
     * on the sum of its own tally and the others' at the same version.
     *
     * @return the decisions made
     */
    public static List<RolloutDecision> round(Rollouts rollouts, String self, List<Rollouts.Published> own,
            Map<String, String> others) {
        Map<String, Map<String, Rollouts.Published>> read = new TreeMap<>();
        List<Rollouts.Sent> sent = new ArrayList<>();
        others.forEach((replica, text) -> {
            read.put(replica, parse(text));
            sent.addAll(parseSent(text).values());
        });
        rollouts.sentByOthers(sent);
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
