package dev.sluice.runtime.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.runtime.config.AlertSettings;
import dev.sluice.runtime.config.ConfigLoader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each alert rule with exact numbers, in virtual time: evaluations 10 s apart. */
class AlertRulesTest {

    static final long S = 1_000_000_000L;
    final AlertRules rules = new AlertRules(AlertSettings.defaults());

    static DeploymentReading quiet() {
        return new DeploymentReading("east", 0, 0, 0, Map.of("input_tpm", 0.5), 0, 0, "normal", false, 0, 1);
    }

    static DeploymentReading reading(long attempts, long throttled, int queued, double inputLevel, long est, long act,
            String mode, boolean paused, int stage, double fraction) {
        return new DeploymentReading("east", attempts, throttled, queued, Map.of("input_tpm", inputLevel), est, act, mode,
                paused, stage, fraction);
    }

    List<Alert.Change> at(long seconds, DeploymentReading r) {
        return rules.evaluate(seconds * S, 1_764_640_800_000L + seconds * 1000, List.of(r));
    }

    @Test
    void provider429sAboveFivePercentOfTwentyAttemptsFireAndResolve() {
        assertThat(at(0, reading(19, 5, 0, 0.5, 0, 0, "normal", false, 0, 1))).as("19 attempts: too few").isEmpty();
        assertThat(at(10, reading(20, 1, 0, 0.5, 0, 0, "normal", false, 0, 1))).as("5% is not above 5%").isEmpty();
        List<Alert.Change> fired = at(20, reading(40, 3, 0, 0.5, 0, 0, "normal", false, 0, 1));
        assertThat(fired).hasSize(1);
        Alert a = fired.get(0).alert();
        assertThat(fired.get(0)).isInstanceOf(Alert.Fired.class);
        assertThat(a.name()).isEqualTo("provider_429_rate");
        assertThat(a.scope()).isEqualTo("deployment:east");
        assertThat(a.value()).isEqualTo(0.075);
        assertThat(a.threshold()).isEqualTo(0.05);
        assertThat(a.sentence()).isEqualTo("east: the provider refused 3 of 40 attempts (7.5%) with a 429: its limits "
                + "are lower than configured, or another client shares them.");
        assertThat(rules.active()).containsExactly(a);
        List<Alert.Change> resolved = at(30, reading(40, 0, 0, 0.5, 0, 0, "normal", false, 0, 1));
        assertThat(resolved).singleElement().isInstanceOf(Alert.Resolved.class);
        assertThat(resolved.get(0).alert().resolvedAtEpochMillis()).hasValue(1_764_640_830_000L);
        assertThat(resolved.get(0).alert().sinceEpochMillis()).isEqualTo(1_764_640_820_000L);
        assertThat(rules.active()).isEmpty();
        assertThat(rules.recent()).containsExactly(resolved.get(0).alert());
    }

    @Test
    void aQueueAboveTwentyFiresWhileGrowingAndResolvesAtTwenty() {
        assertThat(at(0, reading(0, 0, 25, 0.5, 0, 0, "normal", false, 0, 1))).as("no earlier reading").isEmpty();
        assertThat(at(10, reading(0, 0, 25, 0.5, 0, 0, "normal", false, 0, 1))).as("not growing").isEmpty();
        assertThat(at(20, reading(0, 0, 30, 0.5, 0, 0, "normal", false, 0, 1))).singleElement()
                .satisfies(c -> assertThat(c.alert().name()).isEqualTo("queue_growth"));
        assertThat(at(30, reading(0, 0, 21, 0.5, 0, 0, "normal", false, 0, 1))).as("shrinking, still above").isEmpty();
        assertThat(at(40, reading(0, 0, 20, 0.5, 0, 0, "normal", false, 0, 1))).singleElement()
                .isInstanceOf(Alert.Resolved.class);
    }

    @Test
    void aBucketBelowATenthForFifteenMinutesFires() {
        assertThat(at(0, reading(0, 0, 0, 0.09, 0, 0, "normal", false, 0, 1))).isEmpty();
        assertThat(at(899, reading(0, 0, 0, 0.05, 0, 0, "normal", false, 0, 1))).as("14:59 low").isEmpty();
        List<Alert.Change> fired = at(900, reading(0, 0, 0, 0.05, 0, 0, "normal", false, 0, 1));
        assertThat(fired).singleElement().satisfies(c -> {
            assertThat(c.alert().name()).isEqualTo("token_pressure");
            assertThat(c.alert().scope()).isEqualTo("deployment:east/input_tpm");
            assertThat(c.alert().sentence()).isEqualTo("east input_tpm has stayed below 10% of its capacity for 15 min: "
                    + "demand uses it all; expect queueing and refusals.");
        });
        assertThat(at(910, reading(0, 0, 0, 0.1, 0, 0, "normal", false, 0, 1))).singleElement()
                .isInstanceOf(Alert.Resolved.class);
        assertThat(at(920, reading(0, 0, 0, 0.05, 0, 0, "normal", false, 0, 1))).as("low again: the wait restarts")
                .isEmpty();
    }

    @Test
    void inputAQuarterAboveItsEstimateFiresAndTooFewTokensLeaveItAsItWas() {
        assertThat(at(0, reading(0, 0, 0, 0.5, 9_999, 20_000, "normal", false, 0, 1))).as("too few").isEmpty();
        assertThat(at(10, reading(0, 0, 0, 0.5, 10_000, 12_500, "normal", false, 0, 1))).as("1.25 is not above").isEmpty();
        assertThat(at(20, reading(0, 0, 0, 0.5, 10_000, 12_600, "normal", false, 0, 1))).singleElement()
                .satisfies(c -> assertThat(c.alert().sentence()).isEqualTo("east: the provider counted 1.26x the input "
                        + "Sluice estimated (12600 against 10000 tokens): reservations are too small, the provider will "
                        + "refuse first."));
        assertThat(at(30, reading(0, 0, 0, 0.5, 0, 0, "normal", false, 0, 1))).as("no tokens: still active").isEmpty();
        assertThat(at(40, reading(0, 0, 0, 0.5, 10_000, 7_900, "normal", false, 0, 1))).as("0.79 < 1/1.25 holds")
                .isEmpty();
        assertThat(at(50, reading(0, 0, 0, 0.5, 10_000, 10_000, "normal", false, 0, 1))).singleElement()
                .isInstanceOf(Alert.Resolved.class);
    }

    @Test
    void sheddingAndPausedDeploymentsFireAtOnce() {
        List<Alert.Change> c = at(0, reading(0, 0, 0, 0.5, 0, 0, "load_shedding", true, 0, 1));
        assertThat(c).extracting(x -> x.alert().name() + " " + x.alert().severity())
                .containsExactly("deployment_degraded critical", "deployment_paused warning");
        assertThat(at(10, reading(0, 0, 0, 0.5, 0, 0, "caution", false, 0, 1))).hasSize(2)
                .allMatch(x -> x instanceof Alert.Resolved);
    }

    @Test
    void aRampOnOneStageForTenMinutesFires() {
        assertThat(at(0, reading(0, 0, 0, 0.5, 0, 0, "normal", false, 1, 0.25))).isEmpty();
        assertThat(at(590, reading(0, 0, 0, 0.5, 0, 0, "normal", false, 2, 0.5))).as("moved on").isEmpty();
        assertThat(at(1190, reading(0, 0, 0, 0.5, 0, 0, "normal", false, 2, 0.5))).singleElement()
                .satisfies(x -> assertThat(x.alert().sentence()).isEqualTo("east's ramp has stayed at stage 2 (50% of "
                        + "its capacity) for 10 min."));
        assertThat(at(1200, reading(0, 0, 0, 0.5, 0, 0, "normal", false, 2, 1))).singleElement()
                .isInstanceOf(Alert.Resolved.class);
    }

    @Test
    void theAlertsSectionIsReadAndCheckedWithItsFieldPath() {
        var c = ConfigLoader.parse("""
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: m } }
                alerts:
                  provider_429_ratio: 0.1
                  bucket_low_for: 5m
                  webhook: { url: "http://127.0.0.1:9/hook", max_attempts: 3, backoff: 200ms }
                """, "alerts.yaml", v -> null);
        assertThat(c.alerts().provider429Ratio()).isEqualTo(0.1);
        assertThat(c.alerts().bucketLowFor()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.alerts().webhook()).hasValueSatisfying(u -> assertThat(u.toString()).isEqualTo("http://127.0.0.1:9/hook"));
        assertThat(c.alerts().webhookMaxAttempts()).isEqualTo(3);
        assertThat(c.alerts().webhookBackoff()).isEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> ConfigLoader.parse("""
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: m } }
                alerts: { provider_429_ratio: 1.5 }
                """, "alerts.yaml", v -> null)).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).path()).isEqualTo("alerts.provider_429_ratio"));
        assertThatThrownBy(() -> ConfigLoader.parse("""
                deployments: { d: { kind: openai, base_url: "http://127.0.0.1:1" } }
                profiles: { p: { deployment: d, model: m } }
                alerts: { webhook: { url: "ftp://x/y" } }
                """, "alerts.yaml", v -> null)).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).path()).isEqualTo("alerts.webhook.url"));
    }
}
