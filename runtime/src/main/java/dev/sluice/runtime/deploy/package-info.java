/**
 * The deployments in force, and what a configuration change does to them: which are added,
 * removed or replaced ({@link dev.sluice.runtime.deploy.DeploymentChanges}), and each version's
 * retry budget and attempts in flight, so that a removed or replaced version closes only once
 * what runs on it has settled ({@link dev.sluice.runtime.deploy.LiveDeployments}).
 */
package dev.sluice.runtime.deploy;
