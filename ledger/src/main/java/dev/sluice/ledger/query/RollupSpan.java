package dev.sluice.ledger.query;

import dev.sluice.ledger.db.Grain;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Which rollup rows answer for a window: whole days from the daily rows, the hours before the first
 * whole day and after the last from the hourly rows. The window is first widened to whole hours;
 * where it reaches back past the hourly rollups' retention, to whole days.
 *
 * @param covered the widened window
 * @param dayFrom first daily period (epoch seconds), inclusive
 * @param dayTo daily periods end here, exclusive
 */
record RollupSpan(Window covered, long dayFrom, long dayTo) {

    /** The condition on {@code grain} and {@code period_start}; {@link #bind} fills its 6 parameters. */
    static final String WHERE = "((grain = 'd' AND period_start >= ? AND period_start < ?) "
            + "OR (grain = 'h' AND period_start >= ? AND period_start < ?) "
            + "OR (grain = 'h' AND period_start >= ? AND period_start < ?))";

    static RollupSpan of(Window w, Instant now) {
        long from = Grain.HOUR.floor(w.from().getEpochSecond());
        long to = Grain.HOUR.ceil(w.to().getEpochSecond() + (w.to().getNano() > 0 ? 1 : 0));
        long hourlyHorizon = now.minus(Grain.HOURLY_RETENTION).getEpochSecond();
        if (from < hourlyHorizon) {
            from = Grain.DAY.floor(from);
        }
        long d0 = Grain.DAY.ceil(from);
        long d1 = Grain.DAY.floor(to);
        if (d0 >= d1) {
            d0 = to; // no whole day: the first hourly part is all of [from, to), the second empty
            d1 = to;
        }
        return new RollupSpan(new Window(Instant.ofEpochSecond(from), Instant.ofEpochSecond(to)), d0, d1);
    }

    /** Sets the condition's parameters from {@code first} on; returns the next free index. */
    int bind(PreparedStatement s, int first) throws SQLException {
        long from = covered.from().getEpochSecond();
        long to = covered.to().getEpochSecond();
        int i = first;
        s.setLong(i++, dayFrom); // days [dayFrom, dayTo)
        s.setLong(i++, dayTo);
        s.setLong(i++, from); // hours [from, dayFrom)
        s.setLong(i++, dayFrom);
        s.setLong(i++, dayTo); // hours [dayTo, to)
        s.setLong(i++, to);
        return i;
    }
}
