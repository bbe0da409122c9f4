package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.MessagePart;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PromptQuoteTest {

    private final Vertx vertx = Vertx.vertx();
    private static final TokenEstimate QUOTED = new TokenEstimate(10, 5, 0, 10, 10, Tokenizer.O200K_BASE);
    /** Nothing remembered: every character needs counting. */
    private static final ToLongFunction<PromptShape> NOTHING_REMEMBERED = PromptShape::textChars;

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A prompt of {@code chars} characters in all, role included. */
    private static PromptShape promptOf(int chars) {
        return PromptShape.ofMessages(List.of(MessagePart.of("user", "a".repeat(chars - "user".length()))),
                OptionalInt.empty());
    }

    /** Where the count ran, and where its result arrived. */
    private record Seen(boolean countedOnEventLoop, boolean countedBeforeReturn, boolean resultOnSameContext) {}

    private Seen quoteOnAnEventLoop(PromptShape prompt, ToLongFunction<PromptShape> charsToCount) throws Exception {
        Context context = vertx.getOrCreateContext();
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        context.runOnContext(v -> {
            AtomicBoolean onEventLoop = new AtomicBoolean();
            AtomicBoolean counted = new AtomicBoolean();
            var quote = PromptQuote.quote(context, prompt, charsToCount, () -> {
                onEventLoop.set(Context.isOnEventLoopThread());
                counted.set(true);
                return QUOTED;
            });
            boolean countedBeforeReturn = counted.get();
            quote.onComplete(r -> seen.complete(new Seen(onEventLoop.get(), countedBeforeReturn,
                    Vertx.currentContext() == context && r.result() == QUOTED)));
        });
        return seen.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPromptOfEightKibCharactersIsCountedInPlaceWithoutAskingWhatIsRemembered() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        Seen seen = quoteOnAnEventLoop(promptOf(PromptQuote.INLINE_MAX_CHARS), p -> {
            asked.incrementAndGet();
            return p.textChars();
        });
        assertThat(seen.countedOnEventLoop()).isTrue();
        assertThat(seen.countedBeforeReturn()).isTrue();
        assertThat(seen.resultOnSameContext()).isTrue();
        assertThat(asked).hasValue(0);
    }

    @Test
    void aLargerPromptIsCountedOnAWorkerAndAnsweredOnTheRequestsContext() throws Exception {
        Seen seen = quoteOnAnEventLoop(promptOf(50_000), NOTHING_REMEMBERED);
        assertThat(seen.countedOnEventLoop()).isFalse();
        assertThat(seen.resultOnSameContext()).isTrue();
    }

    @Test
    void aLargePromptWhoseTextsAreRememberedIsCountedInPlace() throws Exception {
        Seen seen = quoteOnAnEventLoop(promptOf(50_000), p -> 0);
        assertThat(seen.countedOnEventLoop()).isTrue();
        assertThat(seen.countedBeforeReturn()).isTrue();
    }

    @Test
    void aFailedCountIsAFailedQuoteNotAThrow() {
        var quote = PromptQuote.quote(vertx.getOrCreateContext(), promptOf(10), NOTHING_REMEMBERED, () -> {
            throw new IllegalArgumentException("bad");
        });
        assertThat(quote.failed()).isTrue();
        assertThat(quote.cause()).isInstanceOf(IllegalArgumentException.class).hasMessage("bad");
    }
}
