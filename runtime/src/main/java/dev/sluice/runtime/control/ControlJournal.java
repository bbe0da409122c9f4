package dev.sluice.runtime.control;

import java.util.ArrayList;
import java.util.List;

/**
 * Where changes made through the admin API are kept: the audit trail operators read, and the
 * state each change left, replayed over the configuration file at the next start so that changes
 * survive a restart. The ledger's database keeps one ({@code admin_changes}); without a ledger the
 * journal lives in memory and changes last until the process ends.
 */
public interface ControlJournal {

    /**
     * Appends a change.
     *
     * @param record what operators read; its {@code seq} is ignored and assigned here
     * @param state what replaying the change needs (may hold a key's secret hash); JSON
     * @return the record as stored, with its {@code seq}
     */
    AuditRecord append(AuditRecord record, String state);

    /** The latest {@code limit} records with a {@code seq} below {@code beforeSeq}, newest first. */
    List<AuditRecord> audit(int limit, long beforeSeq);

    /** Every change's action and state, oldest first, to replay at start. */
    List<Replayed> replay();

    /** The {@code seq} of the latest change; 0 when there is none. */
    default long latestSeq() {
        List<AuditRecord> last = audit(1, Long.MAX_VALUE);
        return last.isEmpty() ? 0 : last.get(0).seq();
    }

    /**
     * Whether other processes write to it too (replicas sharing the ledger's database): then each
     * replica looks for their changes ({@link ControlPlane#sync}) every {@link ControlPlane#SYNC_INTERVAL}.
     */
    default boolean shared() {
        return false;
    }

    /** A change to replay: its action and the state it left. */
    record Replayed(String action, String state) {}

    /** A journal that forgets at exit. */
    static ControlJournal inMemory() {
        return new ControlJournal() {
            private final List<AuditRecord> records = new ArrayList<>();
            private final List<Replayed> states = new ArrayList<>();

            @Override
            public synchronized AuditRecord append(AuditRecord r, String state) {
                AuditRecord stored = new AuditRecord(records.size() + 1, r.at(), r.tokenId(), r.action(), r.target(),
                        r.before(), r.after());
                records.add(stored);
                states.add(new Replayed(r.action(), state));
                return stored;
            }

            @Override
            public synchronized List<AuditRecord> audit(int limit, long beforeSeq) {
                List<AuditRecord> out = new ArrayList<>();
                for (int i = records.size() - 1; i >= 0 && out.size() < limit; i--) {
                    if (records.get(i).seq() < beforeSeq) {
                        out.add(records.get(i));
                    }
                }
                return out;
            }

            @Override
            public synchronized List<Replayed> replay() {
                return List.copyOf(states);
            }
        };
    }
}
