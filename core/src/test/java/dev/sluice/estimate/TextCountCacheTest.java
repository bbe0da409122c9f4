package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

class TextCountCacheTest {

    private final TextCountCache cache = new TextCountCache();
    private final AtomicInteger counted = new AtomicInteger();

    /** Counts one token per character, and how often it was asked. */
    private final ToLongFunction<String> byLength = t -> {
        counted.incrementAndGet();
        return t.length();
    };

    @Test
    void aTextSeenBeforeIsNotCountedAgain() {
        String system = "You are a helpful assistant.";
        assertThat(cache.count(Tokenizer.O200K_BASE, system, byLength)).isEqualTo(28);
        assertThat(cache.count(Tokenizer.O200K_BASE, new String(system.toCharArray()), byLength)).isEqualTo(28);
        assertThat(counted).hasValue(1);
    }

    @Test
    void aDifferentTextWithTheSameHashGetsItsOwnCount() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        assertThat(cache.count(Tokenizer.O200K_BASE, "Aa", t -> 1)).isEqualTo(1);
        assertThat(cache.count(Tokenizer.O200K_BASE, "BB", t -> 2)).isEqualTo(2);
        assertThat(cache.count(Tokenizer.O200K_BASE, "Aa", t -> 3)).isEqualTo(3); // "BB" took the slot
    }

    @Test
    void theTokenizerIsPartOfTheKey() {
        cache.count(Tokenizer.O200K_BASE, "hello", t -> 1);
        assertThat(cache.count(Tokenizer.CL100K_BASE, "hello", t -> 2)).isEqualTo(2);
    }

    @Test
    void textsLongerThanTheLimitAreCountedEveryTime() {
        String longText = "x".repeat(TextCountCache.LONGEST_CACHED + 1);
        cache.count(Tokenizer.O200K_BASE, longText, byLength);
        cache.count(Tokenizer.O200K_BASE, longText, byLength);
        assertThat(counted).hasValue(2);
    }

    @Test
    void threadsSharingSlotsAlwaysGetTheirOwnTextsCount() throws Exception {
        // More texts than slots, so threads keep replacing each other's entries.
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < TextCountCache.SLOTS * 4; i++) {
            texts.add("text " + i + " " + "y".repeat(i % 7));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int offset = w;
                Callable<Boolean> worker = () -> {
                    for (int round = 0; round < 50; round++) {
                        for (int i = offset; i < texts.size(); i += 3) {
                            String t = texts.get(i);
                            if (cache.count(Tokenizer.O200K_BASE, t, String::length) != t.length()) {
                                return false;
                            }
                        }
                    }
                    return true;
                };
                results.add(pool.submit(worker));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
