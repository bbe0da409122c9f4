package dev.sluice.store.redis;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * The reset zone's calendar around now, as scripts read it: five consecutive midnights in epoch
 * milliseconds (yesterday's through the one three days on), the epoch-day number of the first, and
 * for each of the first four days the midnight that starts the next month (a monthly cap's reset).
 * Lua has no time-zone rules, so Java supplies the boundaries (daylight-saving days included) and
 * the script picks the day that holds the server's time; a server clock up to a day off the
 * caller's still lands on the right day.
 */
record DayTable(long firstDay, long[] midnights, long[] monthEnds) {

    static final int MIDNIGHTS = 5;

    static DayTable around(long epochMillis, ZoneId zone) {
        LocalDate yesterday = Instant.ofEpochMilli(epochMillis).atZone(zone).toLocalDate().minusDays(1);
        long[] m = new long[MIDNIGHTS];
        for (int i = 0; i < MIDNIGHTS; i++) {
            m[i] = yesterday.plusDays(i).atStartOfDay(zone).toInstant().toEpochMilli();
        }
        long[] e = new long[MIDNIGHTS - 1];
        for (int i = 0; i < e.length; i++) {
            e[i] = yesterday.plusDays(i).withDayOfMonth(1).plusMonths(1).atStartOfDay(zone).toInstant().toEpochMilli();
        }
        return new DayTable(yesterday.toEpochDay(), m, e);
    }

    /** Whether {@code epochMillis} falls in "today" of this table, so it can be reused. */
    boolean centredOn(long epochMillis) {
        return epochMillis >= midnights[1] && epochMillis < midnights[2];
    }
}
