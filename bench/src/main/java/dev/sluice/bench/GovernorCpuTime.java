package dev.sluice.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * Admit + settle pairs per second of the calling thread's CPU time, on the same tree as
 * {@link GovernorBenchmark}. On a shared machine JMH's wall-clock throughput moves with whatever
 * else runs; CPU time per operation does not, so this is the figure that says what one core does.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.sluice.bench.GovernorCpuTime [pairs]}
 */
public final class GovernorCpuTime {

    private GovernorCpuTime() {}

    public static void main(String[] args) {
        long pairs = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        GovernorBenchmark.Tree tree = new GovernorBenchmark.Tree();
        tree.build();
        GovernorBenchmark.Cursor cursor = new GovernorBenchmark.Cursor();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        run(tree, cursor, pairs / 4); // warm-up: let the JIT compile the path
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        run(tree, cursor, pairs);
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        System.out.printf(Locale.ROOT, "%,d admit+settle pairs: %,.0f per CPU second (%.0f ns CPU each); "
                + "%,.0f per wall second%n", pairs, pairs / (cpu / 1e9), (double) cpu / pairs, pairs / (wall / 1e9));
    }

    private static void run(GovernorBenchmark.Tree tree, GovernorBenchmark.Cursor cursor, long pairs) {
        for (long i = 0; i < pairs; i++) {
            GovernorBenchmark.admitAndSettle(tree, cursor);
        }
    }
}
