package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The GC probe reads G1's log lines as they are written. */
class GcProbeTest {

    private static final List<String> LOG = List.of(
            "[10ms] Using G1",
            "[1000ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 186M->54M(232M) 7.137ms",
            "[16482ms] GC(6) Pause Remark 56M->52M(188M) 170.670ms",
            "[2000ms] GC(1) Pause Young (Concurrent Start) (Metadata GC Threshold) 184M->55M(232M) 3.500ms",
            "[3000ms] GC(2) Pause Young (Normal) (G1 Evacuation Pause) 186M->54M(232M) 12.000ms");

    @Test
    void readsYoungPausesOnly() {
        assertThat(GcProbe.pauses(LOG)).containsExactly(new GcProbe.Pause(1000, 186, 54, 7.137),
                new GcProbe.Pause(2000, 184, 55, 3.5), new GcProbe.Pause(3000, 186, 54, 12.0));
    }

    @Test
    void allocationPerRequestIsWhatEachPauseFoundLessWhatTheOneBeforeLeftOverTheTimeBetween() {
        // After the first pause of the window: (184 - 54) + (186 - 55) = 261 MB in 2 s at 5,000 req/s.
        GcProbe.Window w = GcProbe.window(GcProbe.pauses(LOG), 0, 10_000, 5000);
        assertThat(w.bytesPerRequest().getAsDouble()).isEqualTo(261 * 1024.0 * 1024.0 / 10_000);
        assertThat(w.perTenThousand()).isEqualTo(3.0);
        assertThat(w.medianPause()).isEqualTo(7.137);
        assertThat(w.maxPause()).isEqualTo(12.0);
    }

    @Test
    void theWindowBeginsAfterThePausesLoggedBeforeIt() {
        GcProbe.Window w = GcProbe.window(GcProbe.pauses(LOG), 2, 5_000, 5000);
        assertThat(w.pauses()).hasSize(1);
        assertThat(w.perTenThousand()).isEqualTo(2.0);
        assertThat(w.bytesPerRequest()).isEmpty();
    }

    @Test
    void allocationBetweenTwoHeapReadingsCountsWhatEachPauseCollected() {
        // 10,000 KB used, a pause at 20 MB leaving 5 MB, a pause at 30 MB leaving 6 MB, 8,192 KB used at the end.
        List<GcProbe.Pause> pauses = List.of(new GcProbe.Pause(1, 20, 5, 1), new GcProbe.Pause(2, 30, 6, 1));
        assertThat(GcProbe.allocatedKb(10_000, pauses, 8_192))
                .isEqualTo((20 * 1024 - 10_000) + (30 * 1024 - 5 * 1024) + (8_192 - 6 * 1024));
        assertThat(GcProbe.allocatedKb(10_000, List.of(), 12_000)).isEqualTo(2_000);
    }
}
