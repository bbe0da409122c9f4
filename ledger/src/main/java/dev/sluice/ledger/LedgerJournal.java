package dev.sluice.ledger;

import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.db.Migrations;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.control.AuditRecord;
import dev.sluice.runtime.control.ControlJournal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The admin API's journal in the ledger's database ({@code admin_changes}, SQLite or PostgreSQL):
 * changes survive a restart and every replica sharing the database replays the same ones. Each
 * call opens its own connection: changes come at an operator's pace, never a request's. A change
 * is written before it is answered; one that cannot be written fails the request with 500 (the
 * change is in force in this process, and the audit says nothing of it: the operator is told).
 */
public final class LedgerJournal implements ControlJournal {

    /** How often a sequence number taken by another replica at the same instant is tried again. */
    private static final int ATTEMPTS = 5;

    private final Database db;

    private LedgerJournal(Database db) {
        this.db = db;
    }

    /**
     * The journal in the database {@code settings} name, its schema migrated.
     *
     * @throws LedgerException when the database cannot be reached
     * @throws IllegalArgumentException for {@code kind: off}, which has no database
     */
    public static LedgerJournal open(LedgerSettings settings) {
        Database db = Database.of(Objects.requireNonNull(settings, "settings"));
        try (Connection c = db.connect()) {
            Migrations.migrate(c, db.dialect(), db.schema());
        } catch (SQLException e) {
            throw new LedgerException("admin journal: cannot open " + db.describe() + ": " + e.getMessage(), e);
        }
        return new LedgerJournal(db);
    }

    @Override
    public AuditRecord append(AuditRecord r, String state) {
        SQLException last = null;
        for (int i = 0; i < ATTEMPTS; i++) {
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                long seq;
                try (PreparedStatement s = c.prepareStatement("SELECT COALESCE(MAX(seq), 0) + 1 FROM admin_changes");
                        ResultSet rs = s.executeQuery()) {
                    rs.next();
                    seq = rs.getLong(1);
                }
                try (PreparedStatement s = c.prepareStatement("INSERT INTO admin_changes (seq, at, token_id, action, "
                        + "target, before_json, after_json, state_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                    s.setLong(1, seq);
                    s.setLong(2, r.at().toEpochMilli());
                    s.setString(3, r.tokenId());
                    s.setString(4, r.action());
                    s.setString(5, r.target());
                    s.setString(6, r.before());
                    s.setString(7, r.after());
                    s.setString(8, state);
                    s.executeUpdate();
                }
                c.commit();
                return new AuditRecord(seq, r.at(), r.tokenId(), r.action(), r.target(), r.before(), r.after());
            } catch (SQLException e) {
                // Another replica took the same number (PostgreSQL; SQLite's write lock serialises them): again.
                last = e;
            }
        }
        throw new LedgerException("admin journal: cannot write to " + db.describe() + ": " + last.getMessage(), last);
    }

    @Override
    public List<AuditRecord> audit(int limit, long beforeSeq) {
        List<AuditRecord> out = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement("SELECT seq, at, token_id, action, "
                + "target, before_json, after_json FROM admin_changes WHERE seq < ? ORDER BY seq DESC LIMIT ?")) {
            s.setLong(1, beforeSeq);
            s.setInt(2, limit);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new AuditRecord(r.getLong(1), Instant.ofEpochMilli(r.getLong(2)), r.getString(3),
                            r.getString(4), r.getString(5), r.getString(6), r.getString(7)));
                }
            }
        } catch (SQLException e) {
            throw new LedgerException("admin journal: cannot read " + db.describe() + ": " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public List<Replayed> replay() {
        List<Replayed> out = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT action, state_json FROM admin_changes ORDER BY seq"); ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.add(new Replayed(r.getString(1), r.getString(2)));
            }
        } catch (SQLException e) {
            throw new LedgerException("admin journal: cannot read " + db.describe() + ": " + e.getMessage(), e);
        }
        return out;
    }
}
