package dev.sluice.store;

import java.time.LocalDate;

/**
 * Months as the stores count them: a calendar month of the reset zone, numbered from the epoch
 * day of one of its days (already a day in that zone), so a bucket keeps only its day and knows
 * its month. The Redis library computes the same number ({@code month_of} in state.lua).
 */
final class CalendarMonths {

    private CalendarMonths() {}

    /** The month holding epoch day {@code day}: year times 12 plus the month, January 0. */
    static long of(long day) {
        LocalDate d = LocalDate.ofEpochDay(day);
        return d.getYear() * 12L + d.getMonthValue() - 1;
    }
}
