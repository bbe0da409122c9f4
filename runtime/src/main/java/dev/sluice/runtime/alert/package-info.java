/**
 * The gateway's own alerts, evaluated without Prometheus: pure rules over readings of the gateway
 * taken on a timer ({@link dev.sluice.runtime.alert.AlertRules}), the alerts they raise
 * ({@link dev.sluice.runtime.alert.Alert}), and the changes they report.
 */
package dev.sluice.runtime.alert;
