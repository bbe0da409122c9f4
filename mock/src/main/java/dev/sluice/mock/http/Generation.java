package dev.sluice.mock.http;

/**
 * The output of one request: its length and its text, or the tool call it makes. Each token is one
 * four-character word, so counting the text the mock's way ({@code ceil(chars / 4)}) gives the
 * token count back; a tool call's arguments are counted the same way.
 *
 * @param outputTokens tokens produced
 * @param hitMaxTokens whether the output stopped at {@code max_tokens}
 * @param textSeed picks the words
 * @param tool the tool call that is the whole answer, if the request gets one ({@link ToolUse})
 */
record Generation(long outputTokens, boolean hitMaxTokens, long textSeed, java.util.Optional<ToolUse> tool) {

    Generation(long outputTokens, boolean hitMaxTokens, long textSeed) {
        this(outputTokens, hitMaxTokens, textSeed, java.util.Optional.empty());
    }

    /** A generation that is one tool call. */
    static Generation calling(ToolUse tool, long textSeed) {
        return new Generation(tool.tokens(), false, textSeed, java.util.Optional.of(tool));
    }

    /** Whether the answer is a tool call. */
    boolean callsTool() {
        return tool.isPresent();
    }

    /** A tool call id in the provider's style: {@code prefix} then a fixed number from the seed. */
    String toolCallId(String prefix) {
        return prefix + java.util.HexFormat.of().toHexDigits(textSeed);
    }

    private static final String[] WORDS = {
        "sun ", "ray ", "map ", "fog ", "oak ", "elm ", "ice ", "jet ", "kit ", "log ",
        "owl ", "pen ", "sky ", "tea ", "urn ", "web ", "yak ", "zip ", "bay ", "cup "
    };

    /** The text of tokens {@code [from, from + count)}. */
    String text(long from, long count) {
        StringBuilder out = new StringBuilder((int) Math.max(0, count) * 4);
        for (long i = from; i < from + count && i < outputTokens; i++) {
            long h = (textSeed ^ (i * 0x9E3779B97F4A7C15L)) * 0xBF58476D1CE4E5B9L;
            out.append(WORDS[(int) Math.floorMod(h >>> 32, (long) WORDS.length)]);
        }
        return out.toString();
    }

    String fullText() {
        return text(0, outputTokens);
    }
}
