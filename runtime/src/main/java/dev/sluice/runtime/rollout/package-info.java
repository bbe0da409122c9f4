/**
 * Quota-aware rollouts: a profile's traffic moved from one deployment to another by steps, each
 * step's share measured in requests and in tokens, the target's per-minute growth bounded per
 * dimension, every interval judged against thresholds (advance, hold, pause, roll back).
 *
 * <p>The rules are pure and take time as nanos from the runtime's clock: {@link RolloutAssignment}
 * (which side a request is on), {@link ShareMeter} (the step's share and the growth ceiling in a
 * minute), {@link RolloutAnalysis} (an interval's verdict and whether the target has room),
 * {@link Rollout} (the stages and what each verdict or command does). {@link Rollouts} holds a
 * runtime's rollouts, measures the target from the request events and steps them on the runtime's
 * tick; {@link RolloutRouting} applies them through the routing seam, so the gateway and the
 * simulator route alike. On a shared store {@link RolloutFleet} and {@link WarmupFleet} make the
 * judgements and the growth ceiling the fleet's, from what every replica publishes.
 */
package dev.sluice.runtime.rollout;
