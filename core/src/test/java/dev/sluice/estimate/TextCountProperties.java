package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class TextCountProperties {

    private static final Encoding O200K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);

    @Property(tries = 300)
    void countsThroughTheCacheEqualTheTokenizersOwn(@ForAll String text) {
        long direct = O200K.countTokensOrdinary(TextCounter.wellFormed(text));
        assertThat(TextCounter.count(Tokenizer.O200K_BASE, text)).isEqualTo(direct);
        assertThat(TextCounter.count(Tokenizer.O200K_BASE, text)).isEqualTo(direct);
    }
}
