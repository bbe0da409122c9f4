package dev.sluice.estimate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.FakeClock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Several event loops estimating and learning for the same profile and route lose no sample. */
class ConcurrentLearningTest {

    private static final int THREADS = 4;
    private static final int SETTLEMENTS_PER_THREAD = 500;

    @Test
    void noSettlementIsLostUnderContention() throws Exception {
        var config = EstimatorConfig.builder().outputWindowSamples(10_000).build();
        var estimator = new TokenEstimator(config, new FakeClock());
        var profile = EstimatorProfile.of("claude", Tokenizer.CALIBRATED, false);
        // Calibrated base count 1000 (see InputCalibrationTest).
        var prompt = PromptShape.ofMessages(List.of(MessagePart.of("user", "a".repeat(3972))), OptionalInt.empty());
        var start = new CyclicBarrier(THREADS);
        Callable<Void> worker = () -> {
            start.await(10, TimeUnit.SECONDS);
            for (int i = 0; i < SETTLEMENTS_PER_THREAD; i++) {
                TokenEstimate estimate = estimator.estimate(profile, "route", prompt);
                estimator.learn(profile, "route", estimate, new ActualTokens(1300, 200, 650));
            }
            return null;
        };

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Void>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(worker));
            }
            for (Future<Void> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        EstimatorStats stats = estimator.stats(profile, "route");
        assertThat(stats.ratioSamples()).isEqualTo(2000);
        assertThat(stats.outputSamples()).isEqualTo(2000);
        assertThat(stats.cacheSamples()).isEqualTo(2000);
        assertThat(stats.inputRatio()).isEqualTo(1.3);
        assertThat(stats.cachedFraction()).isEqualTo(0.5);
        TokenEstimate estimate = estimator.estimate(profile, "route", prompt);
        assertThat(estimate.promptTokens()).isEqualTo(1300);
        assertThat(estimate.inputTokens()).isEqualTo(650);
        assertThat(estimate.outputTokens()).isEqualTo(200);
    }
}
