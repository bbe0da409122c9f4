package dev.sluice.estimate;

import java.util.function.ToLongFunction;

/**
 * Token counts of recently counted texts. Clients send the same system prompt, tool definitions
 * and roles with every request (the reason providers cache prompt prefixes); comparing a text
 * with the one counted before costs a memory compare, where counting it again runs the
 * tokenizer's regular expression over it, about a hundred times more work.
 *
 * <p>Direct-mapped: a text has one slot, chosen by its hash, and a newer text with the same slot
 * replaces the older one, so the cache never grows and needs no eviction policy. A hit needs an
 * equal text, never just an equal hash. Slots are written without locks: an entry is immutable and
 * published whole (its fields are final), so a reader sees either the old entry, the new one or
 * none, and any of them gives a correct count.
 */
final class TextCountCache {

    /** Slots; a power of two. */
    static final int SLOTS = 512;
    /**
     * Longer texts are counted every time. At most {@value #SLOTS} texts of this length stay
     * referenced: 16 MB at worst, for UTF-16 texts, 8 MB for Latin-1 ones.
     */
    static final int LONGEST_CACHED = 16_384;

    private record Entry(Tokenizer tokenizer, String text, long tokens) {
    }

    private final Entry[] slots = new Entry[SLOTS];

    /** The count of {@code text} under {@code tokenizer}, from the cache or from {@code counter}. */
    long count(Tokenizer tokenizer, String text, ToLongFunction<String> counter) {
        if (text.length() > LONGEST_CACHED) {
            return counter.applyAsLong(text);
        }
        int slot = slot(tokenizer, text);
        Entry e = slots[slot];
        if (e != null && e.tokenizer == tokenizer && e.text.equals(text)) {
            return e.tokens;
        }
        long tokens = counter.applyAsLong(text);
        slots[slot] = new Entry(tokenizer, text, tokens);
        return tokens;
    }

    /** Whether the count of {@code text} under {@code tokenizer} is remembered now. */
    boolean contains(Tokenizer tokenizer, String text) {
        if (text.length() > LONGEST_CACHED) {
            return false;
        }
        Entry e = slots[slot(tokenizer, text)];
        return e != null && e.tokenizer == tokenizer && e.text.equals(text);
    }

    private static int slot(Tokenizer tokenizer, String text) {
        int h = text.hashCode() * 31 + tokenizer.ordinal();
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }
}
