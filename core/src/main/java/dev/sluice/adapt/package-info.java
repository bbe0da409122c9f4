/**
 * Adaptive control of provider deployments: cooldowns after 429s, an adaptive rate multiplier,
 * correction from the provider's own remaining and limit figures, a learned ceiling for
 * deployments without such figures, operating modes (normal, caution, brownout, load shedding)
 * with hysteresis, and optional SRE-style client-side throttling.
 *
 * <p>{@link dev.sluice.adapt.AdaptiveController} holds one deployment's state and applies it
 * through the {@link dev.sluice.governor.QuotaGovernor}; {@link dev.sluice.adapt.AdaptiveControllers}
 * keeps one per deployment and wires them to the governor. The rules themselves are pure
 * package-private {@code *Policy} classes. Everything runs on the governor's injected clock and a
 * seeded random generator.
 */
package dev.sluice.adapt;
