package dev.sluice.bench.load;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * What one run measured. Latencies are from the (scheduled, in open loop) send time to the last
 * byte of the answer, in microseconds.
 *
 * @param spec       the run
 * @param completed  answers measured, good or bad
 * @param errors     answers that were not a 200 with the expected body, and failed exchanges
 * @param missed     open loop only: sends skipped because a second's worth of requests was already waiting
 * @param seconds    measured time
 * @param p50Micros  median latency
 * @param p99Micros  99th percentile latency
 * @param maxMicros  largest latency
 * @param firstError the first error seen, for diagnosis
 * @param proxyCpuMicros   CPU time of the proxy process(es) per measured answer, when known
 * @param harnessCpuMicros CPU time of the harness JVM (load generator and fake upstream) per measured answer
 */
public record LoadResult(LoadSpec spec, long completed, long errors, long missed, double seconds, long p50Micros,
        long p99Micros, long maxMicros, Optional<String> firstError, OptionalDouble proxyCpuMicros,
        OptionalDouble harnessCpuMicros) {

    /** The same result with CPU costs. */
    public LoadResult withCpu(OptionalDouble proxy, OptionalDouble harness) {
        return new LoadResult(spec, completed, errors, missed, seconds, p50Micros, p99Micros, maxMicros, firstError,
                proxy, harness);
    }

    /**
     * Rounds of one run taken at different times, as one result: counts and times add up, CPU
     * costs are averaged over all answers, latency percentiles are the median of the rounds' (so
     * one round disturbed by the machine does not move them) and the maximum is the largest.
     */
    public static LoadResult ofRounds(List<LoadResult> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("rounds: none");
        }
        if (rounds.size() == 1) {
            return rounds.getFirst();
        }
        long completed = 0;
        long errors = 0;
        long missed = 0;
        double seconds = 0;
        long max = 0;
        Optional<String> firstError = Optional.empty();
        for (LoadResult r : rounds) {
            completed += r.completed;
            errors += r.errors;
            missed += r.missed;
            seconds += r.seconds;
            max = Math.max(max, r.maxMicros);
            firstError = firstError.or(r::firstError);
        }
        return new LoadResult(rounds.getFirst().spec, completed, errors, missed, seconds,
                median(rounds.stream().mapToLong(LoadResult::p50Micros).toArray()),
                median(rounds.stream().mapToLong(LoadResult::p99Micros).toArray()), max, firstError,
                weighted(rounds, LoadResult::proxyCpuMicros), weighted(rounds, LoadResult::harnessCpuMicros));
    }

    private static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The per-answer mean over every round, when every round knows it. */
    private static OptionalDouble weighted(List<LoadResult> rounds, Function<LoadResult, OptionalDouble> cost) {
        double total = 0;
        long answers = 0;
        for (LoadResult r : rounds) {
            OptionalDouble c = cost.apply(r);
            if (c.isEmpty()) {
                return OptionalDouble.empty();
            }
            total += c.getAsDouble() * r.completed;
            answers += r.completed;
        }
        return answers == 0 ? OptionalDouble.empty() : OptionalDouble.of(total / answers);
    }

    /** Good answers per second. */
    public double throughput() {
        return seconds > 0 ? (completed - errors) / seconds : 0;
    }
}
