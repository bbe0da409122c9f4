package dev.sluice.adapt;

import dev.sluice.ramp.RampConfig;
import java.util.Objects;

/**
 * Everything one deployment's {@link AdaptiveController} is tuned by, immutable. Each part
 * validates its own fields and documents every default with its reason; {@link #defaults()} is
 * what a deployment gets when its configuration says nothing.
 *
 * @param multiplier the adaptive multiplier (x0.65 on 429, +0.03 per success, floor 0.20)
 * @param cooldown pauses after 429s and overloads
 * @param correction syncing down and adopting the provider's own limit figures
 * @param headerless the learned ceiling for deployments that give no limit figures
 * @param window the sliding window for ratios, latency and queue pressure
 * @param modes operating modes and their thresholds
 * @param ramp staged ramp-up
 * @param clientThrottle optional SRE-style client-side throttling
 */
public record AdaptiveConfig(MultiplierConfig multiplier, CooldownConfig cooldown, CorrectionConfig correction,
        HeaderlessConfig headerless, WindowConfig window, ModeConfig modes, RampConfig ramp,
        ClientThrottleConfig clientThrottle) {

    public AdaptiveConfig {
        Objects.requireNonNull(multiplier, "multiplier");
        Objects.requireNonNull(cooldown, "cooldown");
        Objects.requireNonNull(correction, "correction");
        Objects.requireNonNull(headerless, "headerless");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(modes, "modes");
        Objects.requireNonNull(ramp, "ramp");
        Objects.requireNonNull(clientThrottle, "clientThrottle");
    }

    /** Every part at its documented defaults. */
    public static AdaptiveConfig defaults() {
        return new AdaptiveConfig(MultiplierConfig.defaults(), CooldownConfig.defaults(), CorrectionConfig.defaults(),
                HeaderlessConfig.defaults(), WindowConfig.defaults(), ModeConfig.defaults(), RampConfig.defaults(),
                ClientThrottleConfig.defaults());
    }

    public AdaptiveConfig withMultiplier(MultiplierConfig next) {
        return new AdaptiveConfig(next, cooldown, correction, headerless, window, modes, ramp, clientThrottle);
    }

    public AdaptiveConfig withCooldown(CooldownConfig next) {
        return new AdaptiveConfig(multiplier, next, correction, headerless, window, modes, ramp, clientThrottle);
    }

    public AdaptiveConfig withCorrection(CorrectionConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, next, headerless, window, modes, ramp, clientThrottle);
    }

    public AdaptiveConfig withHeaderless(HeaderlessConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, correction, next, window, modes, ramp, clientThrottle);
    }

    public AdaptiveConfig withWindow(WindowConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, correction, headerless, next, modes, ramp, clientThrottle);
    }

    public AdaptiveConfig withModes(ModeConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, correction, headerless, window, next, ramp, clientThrottle);
    }

    public AdaptiveConfig withRamp(RampConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, correction, headerless, window, modes, next, clientThrottle);
    }

    public AdaptiveConfig withClientThrottle(ClientThrottleConfig next) {
        return new AdaptiveConfig(multiplier, cooldown, correction, headerless, window, modes, ramp, next);
    }
}
