package dev.sluice.signal;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What human-readable error messages and quota identifiers say, for providers that put the facts
 * only there: wait hints, which limit, "Request too large", zero quotas, shared capacity. Only the
 * first {@link #MAX_SCAN} characters are read; text is never counted as malformed.
 */
final class MessageText {

    static final int MAX_SCAN = 4096;

    private static final List<String> WAIT_PHRASES =
            List.of("try again in ", "try again after ", "retry in ", "retry after ");
    private static final List<String> CAPACITY_PHRASES = List.of(
            "temporarily unable to process", "experiencing high demand",
            "resource exhausted, please try again later");

    private MessageText() {}

    /**
     * "Please try again in 125ms." (Go duration), "Try again in 2 seconds", "Please retry after
     * 86400 seconds", "Please retry in 25.465784708s." A bare number is taken as seconds.
     */
    static OptionalLong waitHint(String message) {
        String text = prefix(message).toLowerCase(Locale.ROOT);
        int at = -1;
        for (String phrase : WAIT_PHRASES) {
            int index = text.indexOf(phrase);
            if (index >= 0 && (at < 0 || index < at)) {
                at = index + phrase.length();
            }
        }
        if (at < 0) {
            return OptionalLong.empty();
        }
        int start = skipSpaces(text, at);
        int end = start;
        while (end < text.length() && isDurationChar(text.charAt(end))) {
            end++;
        }
        while (end > start && text.charAt(end - 1) == '.') {
            end--; // the sentence's full stop, not a decimal point
        }
        String token = text.substring(start, end);
        if (token.isEmpty() || !Values.isDigit(token.charAt(0))) {
            return OptionalLong.empty();
        }
        if (!Character.isLetter(token.charAt(token.length() - 1))) {
            return wordUnit(token, text, end);
        }
        return GoDuration.parseMillis(token);
    }

    /** "2 seconds", "500 milliseconds", "3 minutes", or a bare number of seconds. */
    private static OptionalLong wordUnit(String number, String text, int end) {
        if (end < text.length() && " .,;)!\n".indexOf(text.charAt(end)) < 0) {
            return OptionalLong.empty(); // "2025-08-21" or "12:40" is not a wait
        }
        int wordStart = skipSpaces(text, end);
        int wordEnd = wordStart;
        while (wordEnd < text.length() && text.charAt(wordEnd) >= 'a' && text.charAt(wordEnd) <= 'z') {
            wordEnd++;
        }
        long unitMillis = switch (text.substring(wordStart, wordEnd)) {
            case "ms", "millisecond", "milliseconds" -> 1L;
            case "minute", "minutes", "min", "mins" -> 60_000L;
            case "hour", "hours" -> 3_600_000L;
            default -> 1_000L;
        };
        return Values.decimalMillis(number, unitMillis);
    }

    /** Which limit a message names: "tokens per min (TPM)", "40,000 input tokens per minute", "RPD". */
    static Optional<LimitKind> limitKind(String message) {
        String s = squash(message);
        if (containsAny(s, "perday", "daily", "(rpd)", "(tpd)")) {
            return Optional.of(LimitKind.DAILY_QUOTA);
        }
        if (s.contains("inputtoken")) {
            return Optional.of(LimitKind.INPUT_TOKENS);
        }
        if (s.contains("outputtoken")) {
            return Optional.of(LimitKind.OUTPUT_TOKENS);
        }
        if (s.contains("concurren")) {
            return Optional.of(LimitKind.CONCURRENCY);
        }
        if (containsAny(s, "tokensper", "(tpm)", "tokenrate", "toomanytokens", "tokencount")) {
            return Optional.of(LimitKind.TOKENS);
        }
        if (containsAny(s, "requestsper", "(rpm)", "callrate", "requestrate", "toomanyrequests")) {
            return Optional.of(LimitKind.REQUESTS);
        }
        if (s.contains("token") && containsAny(s, "perminute", "ratelimit")) {
            return Optional.of(LimitKind.TOKENS); // "Number of request tokens has exceeded your per-minute rate limit"
        }
        return Optional.empty();
    }

    /** Gemini quota ids and metrics: {@code GenerateRequestsPerDayPerProjectPerModel-FreeTier}. */
    static LimitKind quotaKind(String identifiers) {
        String s = squash(identifiers);
        if (s.contains("perday") || s.contains("daily")) {
            return LimitKind.DAILY_QUOTA;
        }
        if (s.contains("inputtoken")) {
            return LimitKind.INPUT_TOKENS;
        }
        if (s.contains("outputtoken")) {
            return LimitKind.OUTPUT_TOKENS;
        }
        if (s.contains("token")) {
            return LimitKind.TOKENS;
        }
        return s.contains("request") ? LimitKind.REQUESTS : LimitKind.UNKNOWN;
    }

    /**
     * OpenAI "Request too large … Limit 30000, Requested 36055": one request above the limit
     * itself never succeeds. The phrase alone counts unless the numbers contradict it.
     */
    static boolean requestTooLarge(String message) {
        String text = prefix(message).toLowerCase(Locale.ROOT);
        OptionalLong limit = numberAfter(text, "limit ");
        OptionalLong requested = numberAfter(text, "requested ");
        boolean numbersSayTooLarge = limit.isPresent() && requested.isPresent()
                && requested.getAsLong() > limit.getAsLong();
        boolean numbersKnown = limit.isPresent() && requested.isPresent();
        return text.contains("request too large") ? !numbersKnown || numbersSayTooLarge : numbersSayTooLarge;
    }

    /** Gemini "…, limit: 0, model: …": no quota at all for this model. */
    static boolean zeroQuota(String message) {
        String text = prefix(message).toLowerCase(Locale.ROOT);
        int at = text.indexOf("limit: 0");
        int after = at + "limit: 0".length();
        return at >= 0 && (after == text.length() || !Values.isDigit(text.charAt(after)));
    }

    /**
     * The quota a refusal says it came from, when the message names it by the provider's own
     * identifier: OpenAI's "… in organization org-abc on tokens per min" or "… in project proj_x
     * on …", Anthropic's "… rate limit for your organization (4f1c…) of …". Such a quota is shared
     * above one deployment; the identifier (never the whole message) is what a configured provider
     * scope's {@code names} are matched against.
     */
    static Optional<String> quotaOwner(String message) {
        String text = prefix(message);
        String lower = text.toLowerCase(Locale.ROOT);
        for (String marker : new String[] {" in organization ", " in project "}) {
            int at = lower.indexOf(marker);
            if (at >= 0) {
                return identifier(text, at + marker.length(), ' ');
            }
        }
        int at = lower.indexOf("your organization (");
        return at >= 0 ? identifier(text, at + "your organization (".length(), ')') : Optional.empty();
    }

    /** The identifier starting at {@code from} and ending at {@code end} (or a space): letters, digits, '-', '_', '.'. */
    private static Optional<String> identifier(String text, int from, char end) {
        int i = from;
        while (i < text.length() && i - from <= 64) {
            char c = text.charAt(i);
            if (c == end || c == ' ') {
                break;
            }
            if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.')) {
                return Optional.empty();
            }
            i++;
        }
        return i > from && i - from <= 64 ? Optional.of(text.substring(from, i)) : Optional.empty();
    }

    /** Azure and Vertex 429s for shared capacity rather than the caller's quota. */
    static boolean providerCapacity(String message) {
        return containsAny(prefix(message).toLowerCase(Locale.ROOT), CAPACITY_PHRASES.toArray(String[]::new));
    }

    /** The first number (thousands commas allowed) directly after an occurrence of {@code keyword}. */
    private static OptionalLong numberAfter(String text, String keyword) {
        for (int at = text.indexOf(keyword); at >= 0; at = text.indexOf(keyword, at + 1)) {
            StringBuilder digits = new StringBuilder();
            for (int i = at + keyword.length(); i < text.length(); i++) {
                char c = text.charAt(i);
                if (Values.isDigit(c)) {
                    digits.append(c);
                } else if (c != ',' || i + 1 >= text.length() || !Values.isDigit(text.charAt(i + 1))) {
                    break;
                }
            }
            if (!digits.isEmpty()) {
                return Values.nonNegativeInteger(digits.toString());
            }
        }
        return OptionalLong.empty();
    }

    private static boolean isDurationChar(char c) {
        return Values.isDigit(c) || c == '.' || (c >= 'a' && c <= 'z') || c == '\u00b5' || c == '\u03bc';
    }

    private static int skipSpaces(String text, int from) {
        int i = from;
        while (i < text.length() && text.charAt(i) == ' ') {
            i++;
        }
        return i;
    }

    /** Lower case without spaces, underscores and hyphens, so "input tokens" and "input_token" match. */
    private static String squash(String text) {
        String prefix = prefix(text);
        StringBuilder out = new StringBuilder(prefix.length());
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c != ' ' && c != '_' && c != '-') {
                out.append(Character.toLowerCase(c));
            }
        }
        return out.toString();
    }

    private static boolean containsAny(String text, String... needles) {
        for (String needle : needles) {
            if (text.contains(needle)) {
                return true;
            }
        }
        return false;
    }

    private static String prefix(String text) {
        return text.length() > MAX_SCAN ? text.substring(0, MAX_SCAN) : text;
    }
}
