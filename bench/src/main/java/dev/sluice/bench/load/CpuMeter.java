package dev.sluice.bench.load;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * CPU time used by a process and its descendants (nginx workers), read from the operating system.
 * On a shared machine this is the fairer cost measure: wall-clock throughput depends on what
 * else runs, CPU time per request much less. The resolution is the kernel's tick (10 ms), so it is
 * only meaningful over runs of many requests.
 */
final class CpuMeter {

    private final ProcessHandle process;
    private final boolean withDescendants;

    private CpuMeter(ProcessHandle process, boolean withDescendants) {
        this.process = process;
        this.withDescendants = withDescendants;
    }

    /** A child process and the processes it started. */
    static CpuMeter of(ProcessHandle process) {
        return new CpuMeter(process, true);
    }

    /** This JVM alone (not the proxies it started). */
    static CpuMeter self() {
        return new CpuMeter(ProcessHandle.current(), false);
    }

    /** Total CPU time so far; empty where the system does not tell. */
    Optional<Duration> total() {
        Optional<Duration> own = process.info().totalCpuDuration();
        if (own.isEmpty() || !withDescendants) {
            return own;
        }
        Duration sum = own.get();
        for (ProcessHandle child : (Iterable<ProcessHandle>) process.descendants()::iterator) {
            sum = sum.plus(child.info().totalCpuDuration().orElse(Duration.ZERO));
        }
        return Optional.of(sum);
    }

    /** CPU microseconds per request between two readings. */
    static OptionalDouble perRequest(Optional<Duration> before, Optional<Duration> after, long requests) {
        if (before.isEmpty() || after.isEmpty() || requests <= 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(after.get().minus(before.get()).toNanos() / 1000.0 / requests);
    }
}
