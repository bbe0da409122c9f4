package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.Tokenizer;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PromptQuoteTest {

    private final Vertx vertx = Vertx.vertx();
    private static final TokenEstimate QUOTED = new TokenEstimate(10, 5, 0, 10, 10, Tokenizer.O200K_BASE);

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Where the count ran, and where its result arrived. */
    private record Seen(boolean countedOnEventLoop, boolean countedBeforeReturn, boolean resultOnSameContext) {}

    private Seen quoteOnAnEventLoop(long charsToCount) throws Exception {
        Context context = vertx.getOrCreateContext();
        CompletableFuture<Seen> seen = new CompletableFuture<>();
        context.runOnContext(v -> {
            AtomicBoolean onEventLoop = new AtomicBoolean();
            AtomicBoolean counted = new AtomicBoolean();
            var quote = PromptQuote.quote(context, charsToCount, () -> {
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
    void aPromptOfEightKibCharactersIsCountedInPlace() throws Exception {
        Seen seen = quoteOnAnEventLoop(PromptQuote.INLINE_MAX_CHARS);
        assertThat(seen.countedOnEventLoop()).isTrue();
        assertThat(seen.countedBeforeReturn()).isTrue();
        assertThat(seen.resultOnSameContext()).isTrue();
    }

    @Test
    void aLargerPromptIsCountedOnAWorkerAndAnsweredOnTheRequestsContext() throws Exception {
        Seen seen = quoteOnAnEventLoop(50_000);
        assertThat(seen.countedOnEventLoop()).isFalse();
        assertThat(seen.resultOnSameContext()).isTrue();
    }

    @Test
    void aFailedCountIsAFailedQuoteNotAThrow() {
        var quote = PromptQuote.quote(vertx.getOrCreateContext(), 10, () -> {
            throw new IllegalArgumentException("bad");
        });
        assertThat(quote.failed()).isTrue();
        assertThat(quote.cause()).isInstanceOf(IllegalArgumentException.class).hasMessage("bad");
    }
}
