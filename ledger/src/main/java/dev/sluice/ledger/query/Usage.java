package dev.sluice.ledger.query;

import java.util.List;
import java.util.Objects;

/**
 * Usage over a period, one row per group, the busiest first.
 *
 * @param covered the period the rollups read cover (whole hours or days around the one asked for)
 * @param by what the rows are grouped by
 * @param rows one per group that had requests
 * @param total every group together
 */
public record Usage(Window covered, Grouping by, List<UsageRow> rows, UsageRow total) {

    public Usage {
        Objects.requireNonNull(covered, "covered");
        Objects.requireNonNull(by, "by");
        rows = List.copyOf(rows);
        Objects.requireNonNull(total, "total");
    }
}
