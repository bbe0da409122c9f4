package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.limits.Dimension;
import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/** The file's {@code warmups:}: read with defaults, refused with the field's path. */
class WarmupConfigTest {

    private static SluiceConfig parse(String warmups) {
        return ConfigLoader.parse("""
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: gpt-4o-mini } }
                orgs:
                  o:
                    tenants:
                      jobs: { limits: { rpm: 240, tpm: 400000 } }
                      app: {}
                """ + warmups, "warmups.yaml", v -> null);
    }

    @Test
    void aWarmupIsReadWithItsStartDurationRatesAndThreshold() {
        WarmupConfig w = parse("""
                warmups:
                  nightly:
                    tenant: jobs
                    start: "02:00"
                    duration: 2h
                    initial: { rpm: 6 }
                    max_growth_per_minute: { rpm: 20, tpm: 30000 }
                    thresholds: { provider_429_rate: 0.005 }
                """).warmups().get(0);

        assertThat(w.startAt()).contains(LocalTime.of(2, 0));
        assertThat(w.duration()).isEqualTo(Duration.ofHours(2));
        assertThat(w.initial()).containsEntry(Dimension.REQUESTS, 6L)
                .as("one minute's growth where not given").containsEntry(Dimension.TOTAL_TOKENS, 30000L);
        assertThat(w.provider429Rate()).isEqualTo(0.005);
    }

    @Test
    void onFirstTrafficAndThirtyMinutesByDefault() {
        WarmupConfig w = parse("warmups: { j: { tenant: jobs, max_growth_per_minute: { rpm: 20 } } }\n").warmups().get(0);

        assertThat(w.startAt()).isEmpty();
        assertThat(w.duration()).isEqualTo(Duration.ofMinutes(30));
        assertThat(w.minRequests()).isEqualTo(10);
    }

    @Test
    void badWarmupsNameTheirField() {
        String[][] cases = {
            {"warmups: { j: { tenant: ghost, max_growth_per_minute: { rpm: 20 } } }", "warmups.j.tenant"},
            {"warmups: { j: { tenant: app, max_growth_per_minute: { rpm: 20 } } }", "warmups.j.max_growth_per_minute.rpm"},
            {"warmups: { j: { tenant: jobs, max_growth_per_minute: { rpd: 20 } } }", "warmups.j.max_growth_per_minute.rpd"},
            {"warmups: { j: { tenant: jobs } }", "warmups.j.max_growth_per_minute"},
            {"warmups: { j: { tenant: jobs, start: noon, max_growth_per_minute: { rpm: 20 } } }", "warmups.j.start"},
            {"warmups: { j: { tenant: jobs, duration: 30s, max_growth_per_minute: { rpm: 20 } } }", "warmups.j.duration"},
            {"warmups: { j: { tenant: jobs, initial: { tpm: 5 }, max_growth_per_minute: { rpm: 20 } } }",
                "warmups.j.initial.tpm"},
            {"warmups: { j: { tenant: jobs, max_growth_per_minute: { rpm: 20 }, thresholds: { provider_429_rate: 3 } } }",
                "warmups.j.thresholds.provider_429_rate"},
            {"warmups: { j: { tenant: jobs, max_growth_per_minute: { rpm: 20 } }, k: { tenant: jobs, max_growth_per_minute: { rpm: 20 } } }",
                "warmups.k.tenant"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> parse(c[0] + "\n")).as(c[0]).isInstanceOfSatisfying(ConfigException.class,
                    e -> assertThat(e.path()).isEqualTo(c[1]));
        }
    }

    @Test
    void aWarmupForATrafficClassIsRefusedSayingWhy() {
        assertThatThrownBy(() -> parse("warmups: { j: { tenant: jobs, class: batch, max_growth_per_minute: { rpm: 20 } } }\n"))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.path()).isEqualTo("warmups.j.class");
                    assertThat(e.getMessage()).contains("has none of its own", "a tenant of its own");
                });
    }
}
