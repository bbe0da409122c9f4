package dev.sluice.signal;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * HTTP-date (RFC 9110 §5.6.7) in all three forms a recipient must accept: IMF-fixdate
 * {@code Sun, 06 Nov 1994 08:49:37 GMT}, obsolete RFC 850 {@code Sunday, 06-Nov-94 08:49:37 GMT}
 * and asctime {@code Sun Nov  6 08:49:37 1994}. Names are matched without regard to case and
 * runs of spaces count as one; the weekday is checked for spelling, not against the date.
 */
final class HttpDates {

    private static final int MAX_LENGTH = 64;
    private static final List<String> DAYS = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");
    private static final List<String> LONG_DAYS =
            List.of("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday");
    private static final List<String> MONTHS =
            List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec");

    private HttpDates() {}

    /**
     * The date as epoch milliseconds, or empty when it is not an HTTP-date.
     *
     * @param nowEpochMillis resolves RFC 850's two-digit year: a year more than 50 years ahead of
     *     now is taken as the most recent past year with the same last two digits (RFC 9110)
     */
    static OptionalLong parseEpochMillis(String text, long nowEpochMillis) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return OptionalLong.empty();
        }
        int comma = s.indexOf(',');
        if (comma < 0) {
            return asctime(s.split(" +"));
        }
        if (!isDayName(s.substring(0, comma))) {
            return OptionalLong.empty();
        }
        String[] parts = s.substring(comma + 1).strip().split(" +");
        if (parts.length == 5) {
            return imfFixdate(parts);
        }
        if (parts.length == 3) {
            return rfc850(parts, nowEpochMillis);
        }
        return OptionalLong.empty();
    }

    /** {@code 06 nov 1994 08:49:37 gmt} */
    private static OptionalLong imfFixdate(String[] p) {
        if (!isGmt(p[4]) || p[2].length() != 4) {
            return OptionalLong.empty();
        }
        return epochMillis(number(p[2]), MONTHS.indexOf(p[1]) + 1, day(p[0]), p[3]);
    }

    /** {@code 06-nov-94 08:49:37 gmt} */
    private static OptionalLong rfc850(String[] p, long nowEpochMillis) {
        String[] date = p[0].split("-", -1);
        if (!isGmt(p[2]) || date.length != 3 || (date[2].length() != 2 && date[2].length() != 4)) {
            return OptionalLong.empty();
        }
        int year = number(date[2]);
        if (year >= 0 && date[2].length() == 2) {
            int nowYear = Instant.ofEpochMilli(nowEpochMillis).atOffset(ZoneOffset.UTC).getYear();
            year += Math.floorDiv(nowYear, 100) * 100;
            if (year > nowYear + 50) {
                year -= 100;
            }
        }
        return epochMillis(year, MONTHS.indexOf(date[1]) + 1, day(date[0]), p[1]);
    }

    /** {@code sun nov 6 08:49:37 1994} (the double space before a one-digit day is already split). */
    private static OptionalLong asctime(String[] p) {
        if (p.length != 5 || !DAYS.contains(p[0]) || p[4].length() != 4) {
            return OptionalLong.empty();
        }
        return epochMillis(number(p[4]), MONTHS.indexOf(p[1]) + 1, day(p[2]), p[3]);
    }

    private static OptionalLong epochMillis(int year, int month, int day, String time) {
        if (year < 1 || year > 9999 || month < 1 || time.length() != 8
                || time.charAt(2) != ':' || time.charAt(5) != ':') {
            return OptionalLong.empty();
        }
        int hour = number(time.substring(0, 2));
        int minute = number(time.substring(3, 5));
        int second = number(time.substring(6, 8));
        boolean dayValid = day >= 1 && day <= LocalDate.of(year, month, 1).lengthOfMonth();
        // Second 60 is a leap second in the grammar; it simply rolls into the next minute.
        if (!dayValid || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
            return OptionalLong.empty();
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return OptionalLong.of(((epochDay * 24 + hour) * 60 + minute) * 60_000L + second * 1000L);
    }

    /** A day of month is one or two digits (asctime pads with a space, the others with a zero). */
    private static int day(String digits) {
        return digits.length() <= 2 ? number(digits) : -1;
    }

    /** Up to four digits as a number; -1 when empty, longer or not digits. */
    private static int number(String digits) {
        if (digits.isEmpty() || digits.length() > 4) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (!Values.isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static boolean isDayName(String name) {
        return DAYS.contains(name) || LONG_DAYS.contains(name);
    }

    private static boolean isGmt(String zone) {
        return zone.equals("gmt") || zone.equals("utc");
    }
}
