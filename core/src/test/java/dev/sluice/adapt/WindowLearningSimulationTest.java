package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limits.ShortWindow;
import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;

/**
 * The learning rule over time, in virtual milliseconds: a provider that enforces 60,000 tokens a
 * minute as a token bucket a quarter of a second deep (250 tokens), and Sluice pacing the same rate
 * with the default one-second window (1,000 tokens), narrowed and widened by {@link WindowLearning}.
 * Each second a clump of nine 100-token requests arrives (90% of the rate); requests wait in
 * arrival order for Sluice's bucket, and a refused one is gone.
 */
class WindowLearningSimulationTest {

    private static final long RATE_PER_MINUTE = 60_000;
    private static final long COST = 100;
    private static final ShortWindow CONFIGURED = ShortWindow.DEFAULT;

    /** What one run saw, per second of virtual time. */
    record Run(int[] refused, int[] served, double[] scale) {}

    @Test
    void refusalsOfAWindowShorterThanPacedStopOnceItIsLearnedAndThroughputHolds() {
        Run run = simulate(120, 250);
        // Paced at the configured second, a clump meets the quarter-second window at once.
        assertThat(run.refused()[0]).isGreaterThan(5);
        assertThat(sum(run.refused(), 0, 120)).isGreaterThan(0);
        // Once learned, the rare refusals are the slow widening probing back: under 1%.
        int lateRefused = sum(run.refused(), 60, 120);
        int lateServed = sum(run.served(), 60, 120);
        assertThat(lateRefused).isLessThanOrEqualTo((lateServed + lateRefused) / 100);
        assertThat(lateServed).isGreaterThanOrEqualTo(60 * 9 * 99 / 100);
        for (int s = 60; s < 120; s++) {
            assertThat(run.scale()[s]).isLessThanOrEqualTo(0.5);
        }
    }

    @Test
    void aProviderWhoseWindowIsAsLongAsPacedIsNeverRefusedAndTheWindowStaysWhole() {
        Run run = simulate(60, 1_000);
        assertThat(sum(run.refused(), 0, 60)).isZero();
        assertThat(sum(run.served(), 0, 60)).isEqualTo(60 * 9);
        for (double s : run.scale()) {
            assertThat(s).isEqualTo(1.0);
        }
    }

    private static Run simulate(int seconds, long providerCapacity) {
        WindowLearning.Config c = WindowLearning.Config.DEFAULT;
        double refillPerMs = RATE_PER_MINUTE / 60_000.0;
        double scale = 1.0;
        double ours = CONFIGURED.allowance(RATE_PER_MINUTE);
        double theirs = providerCapacity;
        long lastNarrowMs = -1;
        long cleanSinceMs = 0;
        ArrayDeque<Long> queue = new ArrayDeque<>();
        long[] sentPerSecond = new long[seconds];
        int[] refused = new int[seconds];
        int[] served = new int[seconds];
        double[] scales = new double[seconds];
        long windowMs = CONFIGURED.length().toMillis();
        for (long now = 0; now < seconds * 1_000L; now++) {
            long capacity = WindowLearning.paced(CONFIGURED, scale).allowance(RATE_PER_MINUTE);
            ours = Math.min(capacity, ours + refillPerMs);
            theirs = Math.min(providerCapacity, theirs + refillPerMs);
            if (now % 1_000 == 0) {
                for (int i = 0; i < 9; i++) {
                    queue.add(now);
                }
            }
            while (!queue.isEmpty() && ours >= COST) {
                queue.poll();
                ours -= COST;
                int second = (int) (now / 1_000);
                sentPerSecond[second] += COST;
                if (theirs >= COST) {
                    theirs -= COST;
                    served[second]++;
                } else {
                    refused[second]++;
                    cleanSinceMs = now;
                    // One narrowing per burst of refusals: a request sent after the last one.
                    long sentLastMinute = sum(sentPerSecond, Math.max(0, second - 59), second + 1);
                    if (now > lastNarrowMs && WindowLearning.hadRoom(sentLastMinute, RATE_PER_MINUTE, c)) {
                        scale = WindowLearning.narrow(scale, c);
                        lastNarrowMs = now;
                        ours = Math.min(ours, WindowLearning.paced(CONFIGURED, scale).allowance(RATE_PER_MINUTE));
                    }
                }
            }
            long clean = (now - cleanSinceMs) / windowMs;
            if (clean > 0) {
                scale = WindowLearning.widen(scale, clean, c);
                cleanSinceMs += clean * windowMs;
            }
            scales[(int) (now / 1_000)] = scale;
        }
        return new Run(refused, served, scales);
    }

    private static long sum(long[] a, int from, int to) {
        long s = 0;
        for (int i = from; i < to; i++) {
            s += a[i];
        }
        return s;
    }

    private static int sum(int[] a, int from, int to) {
        int s = 0;
        for (int i = from; i < to; i++) {
            s += a[i];
        }
        return s;
    }
}
