package dev.sluice.adapt;

/**
 * What a deployment's pressure looks like over the sliding window: its answers
 * ({@link SignalWindow}), the queue waits of the classes that count, and a latency baseline learned
 * while the deployment is normal. Turns them into the {@link ModePolicy.Readings} the mode machine
 * judges. Answers are recorded under the controller's state lock; queue waits arrive from governor
 * listeners under the governor's locks, so they go through this gauge's own leaf monitor.
 */
final class PressureGauge {

    /** A learned latency baseline follows healthy windows with this half-life. */
    static final long BASELINE_HALF_LIFE_NANOS = 300_000_000_000L;

    private final AdaptiveConfig config;
    private final SignalWindow window;
    private final RollingSums queue;
    private double latencyBaselineNanos;
    private long baselineUpdatedNanos;

    PressureGauge(AdaptiveConfig config, long now) {
        this.config = config;
        this.window = new SignalWindow(config.window());
        this.queue = new RollingSums(config.window().length(), config.window().slots(), 2);
        this.baselineUpdatedNanos = now;
    }

    void success(long now, double factor, long latencyNanos) {
        window.success(now, factor, latencyNanos);
    }

    void limited(long now, double factor) {
        window.limited(now, factor);
    }

    /** A timeout: only its latency counts. */
    void slow(long now, long latencyNanos) {
        window.latency(now, latencyNanos);
    }

    /** One queue outcome: the share of its wait budget a request used, 1 for one refused for lack of time. */
    void queued(long now, double pressure) {
        synchronized (queue) {
            queue.add(now, 0, pressure);
            queue.add(now, 1, 1);
        }
    }

    SignalWindow.Stats stats(long now) {
        return window.stats(now);
    }

    /**
     * The readings at {@code now}, learning the latency baseline on the way.
     *
     * @param multiplierOverCeiling the multiplier relative to its learned ceiling
     */
    ModePolicy.Readings read(long now, SignalWindow.Stats s, Mode mode, double multiplierOverCeiling) {
        learnBaseline(now, s, mode);
        int min = config.window().minSamples();
        // A low multiplier is pressure only while refusals are more than the isolated probe of a healthy deployment.
        boolean refusing = s.limited() > 0 && s.limited() >= s.answers() * config.headerless().cleanRatio();
        double mult = refusing ? multiplierOverCeiling : 1.0;
        double ratio = s.answers() >= min ? (double) s.limited() / s.answers() : 0;
        double pressure;
        synchronized (queue) {
            double n = queue.sum(now, 1);
            pressure = n >= min ? queue.sum(now, 0) / n : 0;
        }
        double baseline = config.modes().latencyBaseline().map(b -> (double) b.toNanos()).orElse(latencyBaselineNanos);
        double latency = s.p95Nanos().isPresent() && baseline > 0 ? s.p95Nanos().getAsLong() / baseline : 0;
        return new ModePolicy.Readings(mult, ratio, pressure, latency);
    }

    /** Follows the window's p95 while normal and not degraded, so degradation is never learned as normal. */
    private void learnBaseline(long now, SignalWindow.Stats s, Mode mode) {
        if (config.modes().latencyBaseline().isPresent() || s.p95Nanos().isEmpty() || mode != Mode.NORMAL) {
            baselineUpdatedNanos = now;
            return;
        }
        double p95 = s.p95Nanos().getAsLong();
        if (latencyBaselineNanos == 0) {
            latencyBaselineNanos = p95;
        } else if (p95 < latencyBaselineNanos * config.modes().latencyRatio().enter().caution()) {
            double alpha = 1 - Math.exp(-(double) (now - baselineUpdatedNanos) / BASELINE_HALF_LIFE_NANOS * Math.log(2));
            latencyBaselineNanos += alpha * (p95 - latencyBaselineNanos);
        }
        baselineUpdatedNanos = now;
    }
}
