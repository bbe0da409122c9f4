package dev.sluice.sim.scenario;

import java.time.Duration;

/** Scales absolute scenario times for the short (CI) form. */
final class Scaling {

    private Scaling() {}

    static Duration scale(Duration d, double factor) {
        return Duration.ofNanos(Math.round(d.toNanos() * factor));
    }
}
