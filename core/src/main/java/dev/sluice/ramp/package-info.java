/**
 * The ramp governor: staged ramp-up of a deployment's dispatch capacity on cold starts, after long
 * cooldowns and for new deployments, so that a jump from idle to full traffic does not trip the
 * provider's acceleration limits. {@link dev.sluice.ramp.RampGovernor} holds the state,
 * {@link dev.sluice.ramp.RampConfig} the stages and bounds; the arithmetic is pure and takes time
 * as an argument.
 */
package dev.sluice.ramp;
