package dev.sluice.estimate;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;

/** Counts the tokens of one text: a real encoding, or the character heuristic for calibrated profiles. */
final class TextCounter {

    private TextCounter() {
    }

    static long count(Tokenizer tokenizer, String text) {
        return switch (tokenizer) {
            // "Ordinary": a prompt that contains "<|endoftext|>" is text to count, not an error.
            case O200K_BASE -> O200k.ENCODING.countTokensOrdinary(text);
            case CL100K_BASE -> Cl100k.ENCODING.countTokensOrdinary(text);
            case CALIBRATED -> heuristic(text);
        };
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
