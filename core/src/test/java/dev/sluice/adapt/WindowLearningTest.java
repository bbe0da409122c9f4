package dev.sluice.adapt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.limits.ShortWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WindowLearningTest {

    private final WindowLearning.Config c = WindowLearning.Config.DEFAULT;

    @Test
    void aRefusalWithRoomHalvesTheWindowDownToAnEighth() {
        assertThat(WindowLearning.narrow(1.0, c)).isEqualTo(0.5);
        assertThat(WindowLearning.narrow(0.5, c)).isEqualTo(0.25);
        assertThat(WindowLearning.narrow(0.2, c)).isEqualTo(0.125);
        assertThat(WindowLearning.narrow(0.125, c)).isEqualTo(0.125);
    }

    @Test
    void cleanWindowsWidenItAnEighthPerThirtyUpToTheConfiguredWindow() {
        assertThat(WindowLearning.widen(0.25, 30, c)).isCloseTo(0.375, within(1e-12));
        assertThat(WindowLearning.widen(0.25, 1, c)).isCloseTo(0.25 + 0.125 / 30, within(1e-12));
        assertThat(WindowLearning.widen(0.5, 120, c)).isEqualTo(1.0);
        assertThat(WindowLearning.widen(0.5, 1_000, c)).isEqualTo(1.0);
        assertThat(WindowLearning.widen(0.5, 0, c)).isEqualTo(0.5);
        assertThat(WindowLearning.widen(0.5, -3, c)).isEqualTo(0.5);
    }

    @Test
    void onlyARefusalWithAtLeastATwentiethOfTheMinuteUnspentCountsAgainstTheWindow() {
        assertThat(WindowLearning.hadRoom(950, 1_000, c)).isTrue();
        assertThat(WindowLearning.hadRoom(0, 1_000, c)).isTrue();
        assertThat(WindowLearning.hadRoom(951, 1_000, c)).isFalse();
        assertThat(WindowLearning.hadRoom(0, 0, c)).isFalse();
    }

    @Test
    void thePacedWindowIsTheConfiguredLengthScaledAtTheSameBurst() {
        ShortWindow configured = new ShortWindow(Duration.ofSeconds(1), 1.5);
        ShortWindow paced = WindowLearning.paced(configured, 0.25);
        assertThat(paced.length()).isEqualTo(Duration.ofMillis(250));
        assertThat(paced.burst()).isEqualTo(1.5);
        assertThat(paced.allowance(60_000)).isEqualTo(375);
        assertThat(WindowLearning.paced(ShortWindow.of(Duration.ofMillis(2)), 0.125).length())
                .isEqualTo(ShortWindow.MIN_LENGTH);
    }

    @Test
    void aConfigOutsideItsRangesIsRefused() {
        assertThatThrownBy(() -> new WindowLearning.Config(1.0, 0.125, 0.125, 0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("narrow in (0,1)");
        assertThatThrownBy(() -> new WindowLearning.Config(0.5, 0, 0.125, 0.1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WindowLearning.Config(0.5, 0.125, 0.125, 1.5))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
