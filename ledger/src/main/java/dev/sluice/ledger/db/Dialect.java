package dev.sluice.ledger.db;

/**
 * What differs between the two databases the ledger writes to. Everything else (types, upserts with
 * {@code ON CONFLICT}, {@code excluded.}) is SQL both understand alike.
 */
public enum Dialect {
    /** One process, one file, one writer (WAL). */
    SQLITE {
        @Override
        String greatest(String a, String b) {
            return "max(" + a + ", " + b + ")";
        }

        @Override
        String deleteOldest(String table, String condition) {
            return "DELETE FROM " + table + " WHERE rowid IN (SELECT rowid FROM " + table + " WHERE " + condition
                    + " LIMIT ?)";
        }
    },
    /** Several replicas, one database; tables in the configured schema. */
    POSTGRES {
        @Override
        String greatest(String a, String b) {
            return "GREATEST(" + a + ", " + b + ")";
        }

        @Override
        String deleteOldest(String table, String condition) {
            // SKIP LOCKED: two replicas deleting at once take different rows instead of waiting on each other.
            return "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table + " WHERE " + condition
                    + " LIMIT ? FOR UPDATE SKIP LOCKED))";
        }
    };

    /** The larger of two expressions. */
    abstract String greatest(String a, String b);

    /** Deletes at most {@code ?2} rows meeting {@code condition}, whose one parameter is {@code ?1}. */
    abstract String deleteOldest(String table, String condition);
}
