package dev.sluice.estimate;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;

/** Counts the tokens of one text: a real encoding, or the character heuristic for calibrated profiles. */
final class TextCounter {

    /** Counts are a function of tokenizer and text alone, so one cache serves every estimator. */
    private static final TextCountCache RECENT = new TextCountCache();

    private TextCounter() {
    }

    static long count(Tokenizer tokenizer, String text) {
        return switch (tokenizer) {
            // "Ordinary": a prompt that contains "<|endoftext|>" is text to count, not an error.
            case O200K_BASE -> RECENT.count(tokenizer, text, t -> O200k.ENCODING.countTokensOrdinary(wellFormed(t)));
            case CL100K_BASE -> RECENT.count(tokenizer, text, t -> Cl100k.ENCODING.countTokensOrdinary(wellFormed(t)));
            case CALIBRATED -> heuristic(text);
        };
    }

    /**
     * The characters that counting {@code text} would tokenize: none when its count is remembered.
     * The character heuristic reads every character, but so cheaply that it counts as none.
     */
    static long charsToCount(Tokenizer tokenizer, String text) {
        return tokenizer == Tokenizer.CALIBRATED || RECENT.contains(tokenizer, text) ? 0 : text.length();
    }

    /**
     * The text with every unpaired surrogate replaced by U+FFFD. jtokkit asserts that its input
     * encodes to valid UTF-8, so with assertions enabled a broken client's prompt would otherwise
     * throw. Returns {@code text} itself, uncopied, in the usual case.
     */
    static String wellFormed(String text) {
        StringBuilder fixed = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1));
            if (pairedHigh) {
                if (fixed != null) {
                    fixed.append(c).append(text.charAt(i + 1));
                }
                i++;
            } else if (Character.isSurrogate(c)) {
                if (fixed == null) {
                    fixed = new StringBuilder(text.length()).append(text, 0, i);
                }
                fixed.append('\uFFFD');
            } else if (fixed != null) {
                fixed.append(c);
            }
        }
        return fixed == null ? text : fixed.toString();
    }

    /**
     * About four ASCII characters per token, as for English and code; every other code point counts
     * as a whole token, because CJK and many other scripts run near one token per character and the
     * learned ratio cannot correct a language mix that changes from request to request.
     */
    static long heuristic(String text) {
        long ascii = 0;
        long other = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            if (cp < 0x80) {
                ascii++;
            } else {
                other++;
            }
            i += Character.charCount(cp);
        }
        return (ascii + 3) / 4 + other;
    }

    // One holder per encoding: loaded on first use only (a vocabulary is megabytes), once, and
    // safely published by class initialisation. Encodings are immutable and thread-safe.
    private static final class O200k {
        static final Encoding ENCODING = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    }

    private static final class Cl100k {
        static final Encoding ENCODING = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.CL100K_BASE);
    }
}
