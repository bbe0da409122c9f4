package dev.sluice.runtime.control;

import java.util.List;

/**
 * Tells a replica when another one reloaded its configuration file through the admin API, so that
 * it reloads its own: a reload is a change like the others, and reaches every replica sharing the
 * journal (its database, or the Redis change relay) the way they do. Each replica reads its own
 * file, so a fleet whose replicas are given the same file ends with the same configuration; one
 * whose file does not validate keeps what it runs (and says why, {@link #lastRefusal}).
 *
 * <p>Counts the {@code config.reload} changes of the journal: those this replica made or already
 * followed are {@link #known}; one more found by a sync is another replica's.
 */
final class PeerReloads {

    static final String ACTION = "config.reload";

    private int known;
    private String lastRefusal = "";

    /** The journal as replayed at start: every reload in it happened before this process read its file. */
    synchronized void started(List<ControlJournal.Replayed> journal) {
        known = count(journal);
    }

    /** This replica reloaded and wrote it to the journal. */
    synchronized void reloadedHere() {
        known++;
    }

    /** Whether {@code journal} holds a reload this replica has not followed; from now on it counts as followed. */
    synchronized boolean newFrom(List<ControlJournal.Replayed> journal) {
        int n = count(journal);
        if (n <= known) {
            return false;
        }
        known = n;
        return true;
    }

    /** Following another replica's reload failed here: why (its own file did not validate, a rule refused it). */
    synchronized void refused(String why) {
        lastRefusal = why;
    }

    /** Why this replica's last attempt to follow another's reload failed; empty when none did. */
    synchronized String lastRefusal() {
        return lastRefusal;
    }

    private static int count(List<ControlJournal.Replayed> journal) {
        int n = 0;
        for (ControlJournal.Replayed r : journal) {
            if (ACTION.equals(r.action())) {
                n++;
            }
        }
        return n;
    }
}
