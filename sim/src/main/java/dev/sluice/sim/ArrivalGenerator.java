package dev.sluice.sim;

import dev.sluice.sim.scenario.Arrival;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/** Turns an {@link Arrival} description into arrival times, one at a time, from its own random stream. */
final class ArrivalGenerator {

    private final Arrival arrival;
    private final long stop;
    private final SplittableRandom random;
    private long t;
    private long[] batch = new long[0];
    private int batchNext;
    private long nextPeriod;

    ArrivalGenerator(Arrival arrival, long start, long stop, SplittableRandom random) {
        this.arrival = arrival;
        this.stop = stop;
        this.random = random;
        this.t = start;
        if (arrival instanceof Arrival.Burst b) {
            long every = b.every().toNanos();
            long first = Math.floorDiv(start, every) * every + b.offset().toNanos();
            this.nextPeriod = first < start ? first + every : first;
        }
    }

    /** The next arrival time, or {@link Long#MAX_VALUE} when the stream has ended. */
    long next() {
        long at = switch (arrival) {
            case Arrival.Constant c -> nextSpaced(c.perSecond(), c.steps(), false);
            case Arrival.Poisson p -> nextSpaced(p.perSecond(), p.steps(), true);
            case Arrival.Burst b -> nextBurst(b);
        };
        return at < stop ? at : Long.MAX_VALUE;
    }

    private long nextSpaced(double base, List<Arrival.Step> steps, boolean poisson) {
        while (t < stop) {
            double rate = valueAt(base, steps, t);
            long boundary = nextStep(steps, t);
            if (rate <= 0) {
                if (boundary == Long.MAX_VALUE) {
                    return Long.MAX_VALUE;
                }
                t = boundary;
                continue;
            }
            double gapSeconds = poisson ? -Math.log(1 - random.nextDouble()) / rate : 1 / rate;
            long candidate = t + (long) Math.ceil(gapSeconds * 1e9);
            if (candidate > boundary) {
                // The rate changes first; a Poisson process is memoryless, so restarting there is exact.
                t = boundary;
                continue;
            }
            t = candidate;
            return t;
        }
        return Long.MAX_VALUE;
    }

    private long nextBurst(Arrival.Burst b) {
        while (batchNext >= batch.length) {
            if (nextPeriod >= stop) {
                return Long.MAX_VALUE;
            }
            int workers = (int) valueAt(b.workers(), b.steps(), nextPeriod);
            long jitter = b.jitter().toNanos();
            batch = new long[workers];
            for (int i = 0; i < workers; i++) {
                batch[i] = nextPeriod + (jitter == 0 ? 0 : (long) (random.nextDouble() * jitter));
            }
            Arrays.sort(batch);
            batchNext = 0;
            nextPeriod += b.every().toNanos();
        }
        return batch[batchNext++];
    }

    private static double valueAt(double base, List<Arrival.Step> steps, long at) {
        double v = base;
        for (Arrival.Step s : steps) {
            if (s.at().toNanos() <= at) {
                v = s.value();
            }
        }
        return v;
    }

    private static long nextStep(List<Arrival.Step> steps, long after) {
        long next = Long.MAX_VALUE;
        for (Arrival.Step s : steps) {
            long at = s.at().toNanos();
            if (at > after) {
                next = Math.min(next, at);
            }
        }
        return next;
    }
}
