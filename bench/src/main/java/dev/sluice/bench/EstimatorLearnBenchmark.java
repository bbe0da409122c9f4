package dev.sluice.bench;

import dev.sluice.estimate.ActualTokens;
import dev.sluice.estimate.EstimatorConfig;
import dev.sluice.estimate.EstimatorProfile;
import dev.sluice.estimate.MessagePart;
import dev.sluice.estimate.PromptShape;
import dev.sluice.estimate.TokenEstimate;
import dev.sluice.estimate.TokenEstimator;
import dev.sluice.estimate.Tokenizer;
import dev.sluice.time.NanoClock;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the estimator learns from each settled request, on the settlement's path: one route's
 * output history (a window of 1,000 answers) and cached fraction, and the profile's input ratio.
 * Answers vary in length as real ones do (20 to 2,000 output tokens), so the history's
 * percentiles lie far from the histogram's first buckets.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class EstimatorLearnBenchmark {

    private static final int LENGTHS = 4096;

    private TokenEstimator estimator;
    private EstimatorProfile profile;
    private TokenEstimate estimate;
    private final ActualTokens[] answers = new ActualTokens[LENGTHS];
    private int next;

    @Setup
    public void setUp() {
        estimator = new TokenEstimator(EstimatorConfig.defaults(), NanoClock.system());
        profile = EstimatorProfile.of("bench", Tokenizer.O200K_BASE, true);
        estimate = estimator.estimate(profile, "bench/interactive",
                PromptShape.ofMessages(List.of(MessagePart.of("user", "Say hello to the benchmark.")), OptionalInt.of(16)));
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < LENGTHS; i++) {
            answers[i] = new ActualTokens(estimate.promptTokens(), 20 + random.nextInt(1_980), 0);
        }
    }

    @Benchmark
    public void learnFromOneAnswer() {
        estimator.learn(profile, "bench/interactive", estimate, answers[next++ & (LENGTHS - 1)]);
    }
}
