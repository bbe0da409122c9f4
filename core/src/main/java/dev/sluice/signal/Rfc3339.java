package dev.sluice.signal;

import java.time.LocalDate;
import java.util.OptionalLong;

/**
 * RFC 3339 date-times as Anthropic sends them in {@code anthropic-ratelimit-*-reset}:
 * {@code 2025-08-21T12:40:59Z}, with optional fractional seconds and a {@code Z} or
 * {@code ±hh:mm} offset. Only the full date-time form is accepted.
 */
final class Rfc3339 {

    private static final int MAX_LENGTH = 40;

    private Rfc3339() {}

    /** Epoch milliseconds (fractions below a millisecond dropped), or empty when not RFC 3339. */
    static OptionalLong parseEpochMillis(String text) {
        String s = text.strip();
        if (s.length() < 20 || s.length() > MAX_LENGTH
                || s.charAt(4) != '-' || s.charAt(7) != '-' || "Tt ".indexOf(s.charAt(10)) < 0
                || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return OptionalLong.empty();
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23
                || minute < 0 || minute > 59 || second < 0 || second > 60
                || day > LocalDate.of(year, month, 1).lengthOfMonth()) {
            return OptionalLong.empty();
        }
        int i = 19;
        int millis = 0;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < s.length() && Values.isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start || i - start > 9) {
                return OptionalLong.empty();
            }
            String fraction = (s.substring(start, i) + "00").substring(0, 3);
            millis = digits(fraction, 0, 3);
        }
        OptionalLong offsetMinutes = offsetMinutes(s.substring(i));
        if (offsetMinutes.isEmpty()) {
            return OptionalLong.empty();
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        long minutes = (epochDay * 24 + hour) * 60 + minute - offsetMinutes.getAsLong();
        return OptionalLong.of(minutes * 60_000L + second * 1000L + millis);
    }

    private static OptionalLong offsetMinutes(String zone) {
        if (zone.equals("Z") || zone.equals("z")) {
            return OptionalLong.of(0);
        }
        if (zone.length() != 6 || zone.charAt(3) != ':' || (zone.charAt(0) != '+' && zone.charAt(0) != '-')) {
            return OptionalLong.empty();
        }
        int hours = digits(zone, 1, 3);
        int minutes = digits(zone, 4, 6);
        if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59) {
            return OptionalLong.empty();
        }
        int total = hours * 60 + minutes;
        return OptionalLong.of(zone.charAt(0) == '-' ? -total : total);
    }

    /** The decimal value of {@code s[from, to)}, or -1 when any character is not a digit. */
    private static int digits(String s, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!Values.isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
