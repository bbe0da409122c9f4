/**
 * Explaining requests after the fact: the recent requests kept in memory ({@link
 * dev.sluice.runtime.explain.RecentRequests}) and the plain account of one request's decision
 * ({@link dev.sluice.runtime.explain.RequestExplanation}), read by the admin API, the dashboard and
 * {@code sluice explain}.
 */
package dev.sluice.runtime.explain;
