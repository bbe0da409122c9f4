/**
 * The gateway's own alerts at run time: {@link dev.sluice.gateway.alert.AlertMonitor} reads the
 * runtime on a timer and asks the pure rules of {@code runtime.alert}; every change is logged,
 * counted in {@code sluice_alerts_active} and sent by {@link dev.sluice.gateway.alert.AlertWebhook}.
 */
package dev.sluice.gateway.alert;
