package dev.sluice.bench.load;

import java.util.Optional;
import java.util.OptionalDouble;

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

    /** Good answers per second. */
    public double throughput() {
        return seconds > 0 ? (completed - errors) / seconds : 0;
    }
}
