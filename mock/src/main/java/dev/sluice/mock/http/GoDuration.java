package dev.sluice.mock.http;

/**
 * Durations as Go's {@code time.Duration} prints them, at millisecond precision, the form OpenAI
 * uses in {@code x-ratelimit-reset-*} and in "Please try again in 125ms.": {@code 0s}, {@code 125ms},
 * {@code 9.816s}, {@code 6m0s}, {@code 1h2m3.5s}.
 */
final class GoDuration {

    private GoDuration() {}

    static String format(long millis) {
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 1_000) {
            return millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        long secondMillis = millis % 60_000;
        StringBuilder out = new StringBuilder();
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        return out.append(Wire.seconds(secondMillis)).append('s').toString();
    }
}
