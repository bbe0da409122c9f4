package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.sim.metrics.RunReport;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioLoader;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The three-replica scenario with the real Redis store (on the simulator's virtual clock) shared by
 * the replicas, as CI runs it: Redis on 127.0.0.1:6379 (bin/with-services starts it).
 */
class RedisStoreRunTest {

    @Test
    void threeReplicasShareOneRedisStoreWithInvariantsHeldAndNothingLost() {
        Scenario s = ScenarioLoader.load(Path.of("../scenarios/three-replicas-redis.yaml")).shortForm();
        RunReport r = Simulation.run(s, "sluice", s.seed(), true, Optional.of("redis://127.0.0.1:6379"));
        assertThat(r.lost()).isZero();
        assertThat(r.json().path("store").asText()).isEqualTo("redis");
        assertThat(r.json().path("succeeded").asLong()).isPositive();
    }
}
