package dev.sluice.sim.strategy;

/**
 * Our own re-implementation of the reference adaptive throttle described in the project's seed
 * document (intent only; no code was copied), for one deployment: a request bucket and an
 * input-token bucket refilled continuously at (limit per minute / 60) x min(multiplier, ramp cap)
 * and capped at limit x that factor, both starting at limit x the initial ramp cap. A 429 opens a
 * cooldown of max(Retry-After, 2 s) + 0.25 s and multiplies the multiplier by 0.65 (floor 0.20);
 * a 2xx adds 0.03 to the multiplier and 0.05 to the ramp cap (each at most 1). Time is in seconds.
 */
final class SeedController {

    /** What {@link #evaluate} decided. */
    enum Action { ADMIT, ADMIT_BROWNOUT, DEFER, SHED }

    /** The operating mode, from the multiplier and ramp cap. */
    enum Mode { NORMAL, CAUTION, BROWNOUT, LOAD_SHEDDING }

    record Verdict(Action action, Mode mode, double waitSeconds, String reason) {}

    static final double INITIAL_RAMP_CAP = 0.25;

    private final double rpm;
    private final double inputTpm;
    private double rampCap;
    private double multiplier = 1.0;
    private double requestLevel;
    private double inputLevel;
    private double cooldownUntil;
    private double lastTick;
    private boolean ticking;

    SeedController(double rpm, double inputTpm) {
        this(rpm, inputTpm, INITIAL_RAMP_CAP);
    }

    SeedController(double rpm, double inputTpm, double rampCap) {
        this.rpm = rpm;
        this.inputTpm = inputTpm;
        this.rampCap = rampCap;
        this.requestLevel = rpm * rampCap;
        this.inputLevel = inputTpm * rampCap;
    }

    private void refill(double now) {
        if (!ticking) {
            // The first observation only starts the clock.
            ticking = true;
            lastTick = now;
            return;
        }
        double elapsed = Math.max(0, now - lastTick);
        lastTick = now;
        double factor = Math.min(multiplier, rampCap);
        requestLevel = Math.min(rpm * factor, requestLevel + elapsed * rpm / 60 * factor);
        inputLevel = Math.min(inputTpm * factor, inputLevel + elapsed * inputTpm / 60 * factor);
    }

    /** Learns from a provider answer: a 429 (with its Retry-After in seconds, 0 if none) or a 2xx. */
    void recordOutcome(int status, double retryAfterSeconds, double now) {
        refill(now);
        if (status == 429) {
            cooldownUntil = Math.max(cooldownUntil, now + Math.max(retryAfterSeconds, 2.0) + 0.25);
            multiplier = Math.max(0.20, round4(multiplier * 0.65));
        } else if (status >= 200 && status < 300) {
            multiplier = Math.min(1.0, round4(multiplier + 0.03));
            rampCap = Math.min(1.0, round4(rampCap + 0.05));
        }
    }

    Mode mode() {
        if (multiplier < 0.35) {
            return Mode.LOAD_SHEDDING;
        }
        if (multiplier < 0.60) {
            return Mode.BROWNOUT;
        }
        if (multiplier < 0.85 || rampCap < 1.0) {
            return Mode.CAUTION;
        }
        return Mode.NORMAL;
    }

    /**
     * Decides one request. {@code priority} is a class name; only {@code critical} and
     * {@code background} are treated specially.
     */
    Verdict evaluate(String priority, long estimatedInputTokens, double remainingDeadlineSeconds,
            double minExecutionSeconds, double now) {
        refill(now);
        Mode mode = mode();
        boolean critical = priority.equals("critical");
        if (remainingDeadlineSeconds < minExecutionSeconds) {
            return new Verdict(Action.SHED, mode, 0, "deadline_budget_insufficient");
        }
        if (now < cooldownUntil) {
            double wait = Math.round((cooldownUntil - now) * 1000) / 1000.0;
            if (!critical || wait + minExecutionSeconds > remainingDeadlineSeconds) {
                return new Verdict(Action.SHED, mode, wait, "active_retry_after_cooldown");
            }
            return new Verdict(Action.DEFER, mode, wait, "wait_for_cooldown_floor");
        }
        if (mode == Mode.LOAD_SHEDDING && !critical) {
            return new Verdict(Action.SHED, mode, 5.0, "non_critical_shed_under_pressure");
        }
        if (mode == Mode.BROWNOUT && priority.equals("background")) {
            return new Verdict(Action.SHED, mode, 10.0, "background_paused_in_brownout");
        }
        if (requestLevel < 1.0 || inputLevel < estimatedInputTokens) {
            return new Verdict(Action.DEFER, mode, 1.5, "token_bucket_burst_cap");
        }
        requestLevel -= 1.0;
        inputLevel -= estimatedInputTokens;
        return mode == Mode.BROWNOUT ? new Verdict(Action.ADMIT_BROWNOUT, mode, 0, "admitted_in_brownout")
                : new Verdict(Action.ADMIT, mode, 0, "admitted");
    }

    double multiplier() {
        return multiplier;
    }

    double rampCap() {
        return rampCap;
    }

    private static double round4(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }
}
