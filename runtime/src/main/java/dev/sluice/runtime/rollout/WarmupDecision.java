package dev.sluice.runtime.rollout;

import dev.sluice.limits.Dimension;
import java.util.Map;
import java.util.Objects;

/**
 * One decision about a warm-up, by its analysis or an operator: what the log and the admin API show.
 *
 * @param warmup the warm-up's name
 * @param tenant its tenant
 * @param atEpochMillis when, wall time
 * @param action {@code started}, {@code grown}, {@code paused}, {@code resumed}, {@code held}, {@code completed}
 * @param by {@code analysis}, or the operator's name
 * @param grown minutes of growth after it
 * @param rates the tenant's per-minute rates after it, per dimension
 * @param reason one sentence saying why, with the minute's figures
 */
public record WarmupDecision(String warmup, String tenant, long atEpochMillis, String action, String by, int grown,
        Map<Dimension, Long> rates, String reason) {

    public WarmupDecision {
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(action, "action");
        // In the dimensions' order: the API and the log print them so.
        rates = rates.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(rates));
    }
}
