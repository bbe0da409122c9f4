package dev.sluice.runtime.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.governor.TrafficClass;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A request's class and deadline: the tightest deadline wins, the class never rises above the key's. */
class DeadlinesTest {

    private static Deadlines.Resolved resolve(String cls, Optional<Duration> key, String ms, String sdk) {
        return Deadlines.resolve(TrafficClass.BATCH, TrafficClass.INTERACTIVE, cls, key, ms, sdk);
    }

    @Test
    void withNothingAskedTheKeysDefaultsHold() {
        assertThat(resolve(null, Optional.empty(), null, null))
                .isEqualTo(new Deadlines.Valid(TrafficClass.BATCH, Long.MAX_VALUE));
    }

    @Test
    void theTightestOfKeyHeaderAndSdkTimeoutWins() {
        assertThat(resolve(null, Optional.of(Duration.ofSeconds(30)), "20000", "600"))
                .isEqualTo(new Deadlines.Valid(TrafficClass.BATCH, 20_000));
        assertThat(resolve(null, Optional.of(Duration.ofSeconds(30)), null, "2.5"))
                .isEqualTo(new Deadlines.Valid(TrafficClass.BATCH, 2_500));
    }

    @Test
    void aClassAboveTheKeysIsLoweredToItsMaximum() {
        assertThat(resolve("critical", Optional.empty(), null, null))
                .isEqualTo(new Deadlines.Valid(TrafficClass.INTERACTIVE, Long.MAX_VALUE));
        assertThat(resolve("background", Optional.empty(), null, null))
                .isEqualTo(new Deadlines.Valid(TrafficClass.BACKGROUND, Long.MAX_VALUE));
    }

    @Test
    void unreadableHeadersAreNamed() {
        assertThat(resolve("vip", Optional.empty(), null, null)).isInstanceOf(Deadlines.Invalid.class)
                .extracting(r -> ((Deadlines.Invalid) r).header()).isEqualTo("x-sluice-class");
        assertThat(resolve(null, Optional.empty(), "-3", null))
                .extracting(r -> ((Deadlines.Invalid) r).code()).isEqualTo("invalid_deadline");
        assertThat(resolve(null, Optional.empty(), null, "soon"))
                .extracting(r -> ((Deadlines.Invalid) r).code()).isEqualTo("invalid_timeout");
        assertThat(resolve(null, Optional.empty(), null, "0"))
                .extracting(r -> ((Deadlines.Invalid) r).header()).isEqualTo("x-stainless-timeout");
    }

    @Test
    void aDeadlineIsPlacedOnTheClock() {
        assertThat(new Deadlines.Valid(TrafficClass.BATCH, 1_500).deadlineNanosFrom(1_000)).isEqualTo(1_500_001_000L);
        assertThat(new Deadlines.Valid(TrafficClass.BATCH, Long.MAX_VALUE).deadlineNanosFrom(1_000))
                .isEqualTo(dev.sluice.governor.AdmissionRequest.NO_DEADLINE);
    }

    @Test
    void theClassesDeadlineFromTheConfigurationIsOneOfThoseTheTightestIsTakenFrom() {
        SluiceConfig config = ConfigLoader.parse("""
                classes:
                  batch: { deadline: 2m, max_queue_wait: 90s }
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", limits: { rpm: 60 } }
                profiles:
                  chat: { deployment: oa, model: gpt-4o-mini }
                """, "classes.yaml", name -> null);

        assertThat(config.classes().get(TrafficClass.BATCH).deadline()).contains(Duration.ofMinutes(2));
        assertThat(config.classes().get(TrafficClass.BATCH).maxQueueWait()).isEqualTo(Duration.ofSeconds(90));
        assertThat(Deadlines.resolve(TrafficClass.BATCH, TrafficClass.BATCH, null, Optional.empty(), null, null,
                config.classes())).isEqualTo(new Deadlines.Valid(TrafficClass.BATCH, 120_000));
        assertThat(Deadlines.resolve(TrafficClass.BATCH, TrafficClass.BATCH, null, Optional.empty(), null, "60",
                config.classes())).isEqualTo(new Deadlines.Valid(TrafficClass.BATCH, 60_000));
        assertThat(Deadlines.resolve(TrafficClass.INTERACTIVE, TrafficClass.INTERACTIVE, null, Optional.empty(), null,
                null, config.classes())).isEqualTo(new Deadlines.Valid(TrafficClass.INTERACTIVE, Long.MAX_VALUE));
    }
}
