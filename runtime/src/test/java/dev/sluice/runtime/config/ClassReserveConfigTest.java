package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.governor.ClassPolicy;
import dev.sluice.governor.TrafficClass;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A class's reserve of shared capacity: its default, an override, and what is refused. */
class ClassReserveConfigTest {

    private static Map<TrafficClass, ClassPolicy> classes(String section) {
        String yaml = "deployments:\n  d: { kind: openai, base_url: \"http://127.0.0.1:1\" }\n"
                + "profiles:\n  p: { deployment: d, model: m }\n" + section;
        return ConfigLoader.parse(yaml, "t.yaml", Map.<String, String>of()::get).classes();
    }

    @Test
    void interactiveHoldsATenthBackByDefaultAndOtherClassesNothing() {
        Map<TrafficClass, ClassPolicy> c = classes("");
        assertThat(c.get(TrafficClass.INTERACTIVE).reserve()).isEqualTo(0.1);
        assertThat(c.get(TrafficClass.CRITICAL).reserve()).isZero();
        assertThat(c.get(TrafficClass.BATCH).reserve()).isZero();
    }

    @Test
    void aReserveIsSetPerClassAndTheOtherFieldsKeepTheirDefaults() {
        Map<TrafficClass, ClassPolicy> c = classes("classes:\n  interactive: { reserve: 0.2 }\n  critical: { reserve: 0.05 }\n");
        assertThat(c.get(TrafficClass.INTERACTIVE).reserve()).isEqualTo(0.2);
        assertThat(c.get(TrafficClass.INTERACTIVE).maxQueueWait()).isEqualTo(java.time.Duration.ofMillis(300));
        assertThat(c.get(TrafficClass.CRITICAL).reserve()).isEqualTo(0.05);
        // Setting the wait alone keeps the default reserve.
        assertThat(classes("classes:\n  interactive: { max_queue_wait: 1s }\n").get(TrafficClass.INTERACTIVE).reserve())
                .isEqualTo(0.1);
    }

    @Test
    void aReserveOutsideItsRangeOrReservesThatLeaveNothingAreRefused() {
        assertThatThrownBy(() -> classes("classes:\n  interactive: { reserve: 1.5 }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("classes.interactive.reserve")
                .hasMessageContaining("in [0, 1)");
        assertThatThrownBy(() -> classes("classes:\n  interactive: { reserve: 0.6 }\n  critical: { reserve: 0.5 }\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("classes")
                .hasMessageContaining("class reserves adding up to less than 1");
    }
}
