package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpDatesTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private static final long NOV_6_1994 = Instant.parse("1994-11-06T08:49:37Z").toEpochMilli();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Sun, 06 Nov 1994 08:49:37 GMT
            Sunday, 06-Nov-94 08:49:37 GMT
            Sun Nov  6 08:49:37 1994
            sun, 06 nov 1994 08:49:37 gmt
            Sun,  06 Nov 1994  08:49:37 GMT
            Sun, 6 Nov 1994 08:49:37 GMT
            Sun, 06 Nov 1994 08:49:37 UTC
            '  Sun, 06 Nov 1994 08:49:37 GMT  '
            Sunday, 06-Nov-1994 08:49:37 GMT
            Sun Nov 06 08:49:37 1994
            """)
    void acceptsAllThreeFormsOfTheSameInstant(String text) {
        assertThat(HttpDates.parseEpochMillis(text, NOW)).hasValue(NOV_6_1994);
    }

    @ParameterizedTest(name = "rejects [{0}]")
    @CsvSource(delimiter = '|', textBlock = """
            ''
            120
            Fri, 31 Dec 1999 23:59:59
            Fri, 31 Dec 1999 23:59:59 PST
            Fri, 31 Dec 1999 23:59:59 +0000
            Xyz, 31 Dec 1999 23:59:59 GMT
            Fri, 32 Dec 1999 23:59:59 GMT
            Fri, 29 Feb 2023 12:00:00 GMT
            Fri, 31 Foo 1999 23:59:59 GMT
            Fri, 31 Dec 99 23:59:59 GMT
            Fri, 31 Dec 1999 24:00:00 GMT
            Fri, 31 Dec 1999 23:60:00 GMT
            Fri, 31 Dec 1999 23:59:61 GMT
            Fri, 31 Dec 1999 23:59 GMT
            Fri, 31 Dec 1999 2:59:59 GMT
            Fri, 31 Dec 0000 23:59:59 GMT
            Fri, 123 Dec 1999 23:59:59 GMT
            Friday, 31-Dec-9 23:59:59 GMT
            Fri Dec 31 23:59:59 99
            Fri Dec 31 23:59:59 1999 GMT
            2025-08-21T12:40:59Z
            Fri, -1 Dec 1999 23:59:59 GMT
            """)
    void rejectsWhatIsNotAnHttpDate(String text) {
        assertThat(HttpDates.parseEpochMillis(text == null ? "" : text, NOW)).isEmpty();
    }

    @Test
    void leapDayIsAcceptedInALeapYear() {
        assertThat(HttpDates.parseEpochMillis("Thu, 29 Feb 2024 12:00:00 GMT", NOW))
                .hasValue(Instant.parse("2024-02-29T12:00:00Z").toEpochMilli());
    }

    @Test
    void leapSecondRollsIntoTheNextMinute() {
        assertThat(HttpDates.parseEpochMillis("Sat, 31 Dec 2016 23:59:60 GMT", NOW))
                .hasValue(Instant.parse("2017-01-01T00:00:00Z").toEpochMilli());
    }

    @ParameterizedTest(name = "{0}-Jan-{1} read in 2026 is {2}")
    @CsvSource(textBlock = """
            Thursday, 26, 2026
            Friday, 76, 2076
            Saturday, 77, 1977
            Friday, 99, 1999
            """)
    void rfc850TwoDigitYearIsAtMostFiftyYearsAhead(String day, String yy, int year) {
        long parsed = HttpDates.parseEpochMillis(day + ", 01-Jan-" + yy + " 00:00:00 GMT", NOW).orElseThrow();
        assertThat(Instant.ofEpochMilli(parsed).atOffset(ZoneOffset.UTC).getYear()).isEqualTo(year);
    }

    @Property
    void roundTripsTheJdkImfFixdate(@ForAll @LongRange(min = 0, max = 253_402_300_799L) long epochSecond) {
        Instant instant = Instant.ofEpochSecond(epochSecond);
        String imf = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT)
                .withZone(ZoneOffset.UTC).format(instant);
        String asctime = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT)
                .withZone(ZoneOffset.UTC).format(instant);
        assertThat(HttpDates.parseEpochMillis(imf, NOW)).hasValue(epochSecond * 1000);
        assertThat(HttpDates.parseEpochMillis(asctime, NOW)).hasValue(epochSecond * 1000);
    }

    @Property
    void neverThrows(@ForAll String text, @ForAll long now) {
        assertThat(HttpDates.parseEpochMillis(text, now)).isNotNull();
    }
}
