package dev.sluice.sim;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import java.time.Duration;

/**
 * The end-to-end mode: the same scenario in real time through the real gateway over HTTP against
 * the mock provider.
 */
final class EndToEnd {

    private EndToEnd() {}

    static RunReport run(Scenario scenario, String strategy, long seed, Duration bound) {
        throw new UnsupportedOperationException("end-to-end mode needs the gateway's start API, which has not landed");
    }
}
