package dev.sluice.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.ledger.db.Database;
import dev.sluice.ledger.query.Grouping;
import dev.sluice.ledger.query.LedgerQueries;
import dev.sluice.ledger.query.Review;
import dev.sluice.ledger.query.Usage;
import dev.sluice.ledger.query.UsageRow;
import dev.sluice.ledger.query.Window;
import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.RequestEvent;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every ledger database must do, with exact numbers: run against SQLite and PostgreSQL by its
 * subclasses. The numbers come from {@link Traffic}, worked out by hand there.
 */
abstract class LedgerContract {

    static final Clock CLOCK = Clock.fixed(Traffic.NOW, ZoneOffset.UTC);
    static final Window DAY = Window.last(Duration.ofHours(24), Traffic.NOW);
    static final Window WEEK = Window.last(Duration.ofDays(7), Traffic.NOW);

    /** A fresh, empty ledger location for this test. */
    abstract LedgerSettings settings();

    JdbcLedger open() {
        return JdbcLedger.open(settings(), CLOCK, "w1");
    }

    /** Records {@code events} and closes: everything is written. */
    LedgerQueries record(List<RequestEvent> events) {
        JdbcLedger ledger = open();
        events.forEach(ledger::onRequest);
        ledger.close();
        assertThat(ledger.stats().unrecorded()).isZero();
        return ledger.queries().orElseThrow();
    }

    static UsageRow row(String group, long requests, long answered, long refusedLocally, long providerRejected,
            long clientGone, long queued, long in, long out, long cache, long estIn, long estOut, long borrowed,
            long latencyMs) {
        return new UsageRow(group, requests, answered, refusedLocally, providerRejected, clientGone, 0, queued, in, out,
                cache, estIn, estOut, borrowed, latencyMs, 0, 0);
    }

    @Test
    void usageByTenantSumsTheLastDayOfRequests() {
        Usage u = record(Traffic.all()).usage(DAY, Grouping.TENANT);
        assertThat(u.covered()).isEqualTo(new Window(Instant.parse("2026-03-01T12:00:00Z"),
                Instant.parse("2026-03-02T13:00:00Z")));
        assertThat(u.rows()).containsExactly(
                row("acme", 4, 3, 0, 0, 1, 1, 1240, 447, 650, 1350, 950, 1, 2200),
                row("globex", 3, 1, 1, 1, 0, 0, 90, 60, 0, 800, 350, 0, 901),
                row("", 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1));
        assertThat(u.total()).isEqualTo(row("", 8, 4, 1, 1, 1, 1, 1330, 507, 650, 2150, 1300, 1, 3102));
        assertThat(u.rows().get(0).meanLatencyMillis()).isEqualTo(550.0);
    }

    @Test
    void usageByEveryOtherGrouping() {
        LedgerQueries q = record(Traffic.all());
        assertThat(q.usage(DAY, Grouping.KEY).rows()).extracting(UsageRow::group, UsageRow::requests)
                .containsExactly(pair("a1", 3), pair("g1", 3), pair("", 1), pair("a2", 1));
        assertThat(q.usage(DAY, Grouping.PROFILE).rows()).extracting(UsageRow::group, UsageRow::requests,
                UsageRow::outputTokens).containsExactly(triple("fast", 5, 257), triple("claude", 2, 250),
                        triple("", 1, 0));
        assertThat(q.usage(DAY, Grouping.DEPLOYMENT).rows()).extracting(UsageRow::group, UsageRow::requests)
                .containsExactly(pair("openai-east", 5), pair("anthropic-main", 2), pair("", 1));
        assertThat(q.usage(DAY, Grouping.CLASS).rows()).extracting(UsageRow::group, UsageRow::requests)
                .containsExactly(pair("interactive", 6), pair("", 1), pair("batch", 1));
    }

    @Test
    void aWeekReadsWholeDaysAndTheHoursAroundThem() {
        Usage u = record(Traffic.all()).usage(WEEK, Grouping.TENANT);
        assertThat(u.covered()).isEqualTo(new Window(Instant.parse("2026-02-23T12:00:00Z"),
                Instant.parse("2026-03-02T13:00:00Z")));
        assertThat(u.rows()).extracting(UsageRow::group, UsageRow::requests)
                .containsExactly(pair("acme", 5), pair("globex", 3), pair("", 1));
    }

    @Test
    void theWindowIsKeptToTheHour() {
        LedgerQueries q = record(Traffic.all());
        Usage lastHour = q.usage(Window.last(Duration.ofHours(1), Traffic.NOW), Grouping.TENANT);
        assertThat(lastHour.covered()).isEqualTo(new Window(Instant.parse("2026-03-02T11:00:00Z"),
                Instant.parse("2026-03-02T13:00:00Z")));
        assertThat(lastHour.rows()).isEmpty();
        assertThat(lastHour.total().requests()).isZero();
        Usage threeHours = q.usage(Window.last(Duration.ofHours(3), Traffic.NOW), Grouping.TENANT);
        assertThat(threeHours.total().requests()).isEqualTo(8);
    }

    @Test
    void reviewEstimationErrorByRoute() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.estimation()).hasSize(4);
        Review.EstimationError claudeIn = r.estimation().get(0);
        assertThat(claudeIn).extracting(Review.EstimationError::profile, Review.EstimationError::deployment,
                Review.EstimationError::dimension, Review.EstimationError::samples)
                .containsExactly("claude", "anthropic-main", "input", 1L);
        assertThat(claudeIn.meanRatio()).isEqualTo(1.0);
        Review.EstimationError claudeOut = r.estimation().get(1);
        assertThat(claudeOut.meanRatio()).isCloseTo(250.0 / 300, within(1e-12));
        // fast, input: 1.1, 0.9, 0.9, 1.0 (E1, E2, E5's retry, E8)
        Review.EstimationError fastIn = r.estimation().get(2);
        assertThat(fastIn.dimension()).isEqualTo("input");
        assertThat(fastIn.samples()).isEqualTo(4);
        assertThat(fastIn.meanRatio()).isCloseTo(0.975, within(1e-12));
        assertThat(fastIn.bias()).isCloseTo(-0.025, within(1e-12));
        assertThat(fastIn.p50Ratio()).isEqualTo(Math.pow(2, -1.0 / 8));
        assertThat(fastIn.p95Ratio()).isEqualTo(Math.pow(2, 1.0 / 8));
        assertThat(fastIn.tokenRatio()).isCloseTo(480.0 / 500, within(1e-12));
        // fast, output: 0.8, 1.2, 1.2, 1.0
        Review.EstimationError fastOut = r.estimation().get(3);
        assertThat(fastOut.meanRatio()).isCloseTo(1.05, within(1e-12));
        assertThat(fastOut.p50Ratio()).isEqualTo(1.0);
        assertThat(fastOut.p95Ratio()).isEqualTo(Math.pow(2, 2.0 / 8));
        assertThat(fastOut.tokenRatio()).isCloseTo(270.0 / 250, within(1e-12));
    }

    @Test
    void reviewStrandedQuotaPerDeploymentAndDimension() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.stranded()).containsExactly(
                new Review.StrandedQuota("anthropic-main", "input_tpm", 2, 1400, 900, 500, 0),
                new Review.StrandedQuota("anthropic-main", "output_tpm", 2, 500, 250, 250, 0),
                new Review.StrandedQuota("openai-east", "input_tpm", 5, 600, 580, 30, 10),
                new Review.StrandedQuota("openai-east", "output_tpm", 5, 750, 307, 473, 30));
        assertThat(r.stranded().get(3).strandedShare()).isCloseTo(473.0 / 750, within(1e-12));
    }

    @Test
    void reviewCacheReadHeadroom() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.cacheHeadroom()).containsExactly(
                new Review.CacheHeadroom("anthropic-main", 1500, 600, 600),
                new Review.CacheHeadroom("openai-east", 580, 50, 0));
        assertThat(r.cacheHeadroom().get(0).uncountedShare()).isEqualTo(0.4);
    }

    @Test
    void reviewRetryAfterByProviderAndLimiter() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.retryAfter()).containsExactly(
                new Review.RetryAfters("provider", "anthropic", "output_tpm", 1, 30_000, 30_000, 30_000, 30_000),
                new Review.RetryAfters("provider", "openai", "input_tpm", 1, 2000, 2000, 2000, 2000),
                new Review.RetryAfters("gateway", "openai", "input_tpm", 1, 1500, 1500, 1500, 1500));
    }

    @Test
    void reviewTopConsumersPerDimension() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.topConsumers()).containsExactly(
                new Review.TopConsumer("requests", 1, "acme", "a1", 4, 0.5),
                new Review.TopConsumer("requests", 2, "globex", "g1", 3, 0.375),
                new Review.TopConsumer("requests", 3, "acme", "a2", 1, 0.125),
                new Review.TopConsumer("input_tokens", 1, "acme", "a2", 900, 900.0 / 1430),
                new Review.TopConsumer("input_tokens", 2, "acme", "a1", 440, 440.0 / 1430),
                new Review.TopConsumer("input_tokens", 3, "globex", "g1", 90, 90.0 / 1430),
                new Review.TopConsumer("output_tokens", 1, "acme", "a2", 250, 250.0 / 557),
                new Review.TopConsumer("output_tokens", 2, "acme", "a1", 247, 247.0 / 557),
                new Review.TopConsumer("output_tokens", 3, "globex", "g1", 60, 60.0 / 557),
                new Review.TopConsumer("cache_read_tokens", 1, "acme", "a2", 600, 600.0 / 650),
                new Review.TopConsumer("cache_read_tokens", 2, "acme", "a1", 50, 50.0 / 650));
    }

    @Test
    void reviewBorrowingByTenant() {
        Review r = record(Traffic.all()).review(WEEK);
        assertThat(r.borrowing()).containsExactly(
                new Review.Borrowing("acme", 5, 1, 1340, 900, 497, 250),
                new Review.Borrowing("globex", 3, 0, 90, 0, 60, 0));
        assertThat(r.borrowing().get(0).borrowedShare()).isEqualTo(0.2);
    }

    @Test
    void aReplayedBatchIsNotCountedTwice() throws SQLException {
        record(Traffic.all());
        JdbcLedger again = JdbcLedger.open(settings(), CLOCK, "w2");
        Traffic.all().forEach(again::onRequest);
        again.close();
        assertThat(again.stats()).extracting(LedgerStats::recorded, LedgerStats::duplicates)
                .containsExactly(0L, 9L);
        Usage u = again.queries().orElseThrow().usage(WEEK, Grouping.TENANT);
        assertThat(u.total().requests()).isEqualTo(9);
        assertThat(u.total().inputTokens()).isEqualTo(1430);
        assertThat(count("requests")).isEqualTo(9);
        // E5's two; the six requests of one attempt keep it in their own row.
        assertThat(count("attempts")).isEqualTo(2);
    }

    @Test
    void notAnsweredKeepsRowsForTheRequestsThatFailedAndSumsThemAll() throws SQLException {
        JdbcLedger ledger = JdbcLedger.open(settings().withRows(LedgerSettings.Rows.NOT_ANSWERED), CLOCK, "w1");
        Traffic.all().forEach(ledger::onRequest);
        ledger.close();
        assertThat(ledger.stats()).extracting(LedgerStats::recorded, LedgerStats::recordedAttempts,
                LedgerStats::duplicates).containsExactly(9L, 2L, 0L);
        // E4 (429 here), E6 (499), E7 (401), E9 (429 from Anthropic); E6 and E9 made one attempt each,
        // kept in their own rows.
        assertThat(column("SELECT trace_id FROM requests ORDER BY trace_id")).containsExactly(
                "00000000000000000000000000000004", "00000000000000000000000000000006",
                "00000000000000000000000000000007", "00000000000000000000000000000009");
        assertThat(column("SELECT trace_id FROM requests WHERE attempt_started_at IS NOT NULL ORDER BY trace_id"))
                .containsExactly("00000000000000000000000000000006", "00000000000000000000000000000009");
        assertThat(count("attempts")).isZero();
        // The rollups hold all nine, the answered ones too.
        Usage u = ledger.queries().orElseThrow().usage(WEEK, Grouping.TENANT);
        assertThat(u.total().requests()).isEqualTo(9);
        assertThat(u.total().answered()).isEqualTo(5);
        assertThat(u.total().inputTokens()).isEqualTo(1430);
        assertThat(u.total().outputTokens()).isEqualTo(557);
        assertThat(count("batches_written")).isEqualTo(1);
    }

    @Test
    void withoutRowsABatchWrittenAgainBySecondWriterIsSummedOnce() throws SQLException {
        List<RequestEvent> batch = Traffic.all();
        List<RequestEvent> reversed = new java.util.ArrayList<>(batch);
        java.util.Collections.reverse(reversed);
        try (dev.sluice.ledger.db.LedgerStore w1 = new dev.sluice.ledger.db.LedgerStore(Database.of(settings()), "w1",
                LedgerSettings.Rows.NONE);
                dev.sluice.ledger.db.LedgerStore w2 = new dev.sluice.ledger.db.LedgerStore(Database.of(settings()),
                        "w2", LedgerSettings.Rows.NONE)) {
            w1.migrate();
            assertThat(w1.write(batch)).isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(9, 0, 0));
            // The same requests in another order: the same mark.
            assertThat(w2.write(reversed)).isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(0, 9, 0));
            assertThat(w1.write(List.of(Traffic.e1())))
                    .isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(1, 0, 0));
        }
        assertThat(count("requests")).isZero();
        assertThat(count("attempts")).isZero();
        assertThat(count("batches_written")).isEqualTo(2);
        Usage u = LedgerQueries.of(Database.of(settings()), CLOCK).usage(WEEK, Grouping.TENANT);
        assertThat(u.total().requests()).isEqualTo(10);
        assertThat(u.total().inputTokens()).isEqualTo(1540);
    }

    @Test
    void closeWritesEverythingAndCountsTheRows() {
        JdbcLedger ledger = open();
        Traffic.all().forEach(ledger::onRequest);
        ledger.close();
        assertThat(ledger.stats()).isEqualTo(new LedgerStats(9, 8, 0, 0, 0, 0, ledger.stats().lastWriteLagMillis()));
        ledger.onRequest(Traffic.e1());
        assertThat(ledger.stats().unrecorded()).isEqualTo(1);
    }

    @Test
    void aStreamTheClientLeftKeepsTheUsageProducedSoFar() throws SQLException {
        record(List.of(Traffic.e6()));
        Map<String, Object> req = single("SELECT status, output_tokens, input_tokens, usage_reported, streaming "
                + "FROM requests");
        assertThat(req).containsExactly(Map.entry("status", 499L), Map.entry("output_tokens", 37L),
                Map.entry("input_tokens", 100L), Map.entry("usage_reported", 0L), Map.entry("streaming", 1L));
        Map<String, Object> att = single("SELECT attempt_result AS result, attempt_output_tokens AS output_tokens, "
                + "attempt_settlement AS settlement FROM requests");
        assertThat(att).containsExactly(Map.entry("result", "client_gone"), Map.entry("output_tokens", 37L),
                Map.entry("settlement", "settled"));
        UsageRow acme = record(List.of()).usage(DAY, Grouping.TENANT).rows().get(0);
        assertThat(acme.clientGone()).isEqualTo(1);
        assertThat(acme.outputTokens()).isEqualTo(37);
    }

    @Test
    void aRequestRowHoldsEveryFactOfItsEvent() throws SQLException {
        record(List.of(Traffic.e5(), Traffic.e4()));
        Map<String, Object> e5 = single("SELECT * FROM requests WHERE trace_id = '00000000000000000000000000000005'");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("trace_id", "00000000000000000000000000000005");
        expected.put("span_id", Traffic.e5().spanId());
        expected.put("received_at", Traffic.T0.plus(Duration.ofMinutes(4)).toEpochMilli());
        expected.put("operation", "openai.chat");
        expected.put("org", "globex");
        expected.put("tenant", "globex");
        expected.put("team", "globex/app");
        expected.put("api_key", "g1");
        expected.put("profile", "fast");
        expected.put("traffic_class", "interactive");
        expected.put("deployment", "openai-east");
        expected.put("provider", "openai");
        expected.put("provider_model", "gpt-4o-mini");
        expected.put("provider_scope", "{\"project\":\"prod\",\"region\":\"eastus\"}");
        expected.put("streaming", 0L);
        expected.put("estimated_input", 100L);
        expected.put("estimated_output", 50L);
        expected.put("estimated_cache_read", 0L);
        expected.put("input_tokens", 90L);
        expected.put("output_tokens", 60L);
        expected.put("cache_read_tokens", 0L);
        expected.put("usage_reported", 1L);
        expected.put("decision", "admitted");
        expected.put("gateway_decision", null);
        expected.put("decider_limiter", null);
        expected.put("decider_scope", null);
        expected.put("decider_window", null);
        expected.put("code", null);
        expected.put("queue_wait_ns", 0L);
        expected.put("mode", "normal");
        expected.put("brownout", 0L);
        expected.put("borrowed", 0L);
        expected.put("attempts", 2L);
        expected.put("fallback", null);
        expected.put("status", 200L);
        expected.put("retry_after_ms", null);
        expected.put("latency_ns", 500_000_000L);
        expected.put("ttft_ns", 480_000_000L);
        expected.put("writer", "w1");
        expected.put("estimated_cost_micros", 0L);
        expected.put("cost_micros", 0L);
        expected.put("decider_paused", null);
        expected.put("decider_reserve", null);
        expected.put("predicted_wait_ns", null);
        expected.put("service_ns", null);
        expected.put("budget_ns", null);
        expected.put("bound_by", null);
        // Two attempts: rows of `attempts`, none in the request's own columns for one.
        for (String column : List.of("attempt_started_at", "attempt_result", "attempt_status", "attempt_reason",
                "attempt_limit_hit", "attempt_provider_retry_after_ms", "attempt_estimated_input",
                "attempt_estimated_output", "attempt_estimated_cache_read", "attempt_input_tokens",
                "attempt_output_tokens", "attempt_cache_read_tokens", "attempt_usage_reported",
                "attempt_cache_reads_counted", "attempt_settlement", "attempt_latency_ns", "attempt_ttft_ns",
                "attempt_retry_delay_ms")) {
            expected.put(column, null);
        }
        assertThat(e5).containsExactlyEntriesOf(expected);

        Map<String, Object> e4 = single("SELECT gateway_decision, decider_limiter, decider_scope, code, "
                + "retry_after_ms, attempts FROM requests WHERE trace_id = '00000000000000000000000000000004'");
        assertThat(e4).containsExactly(Map.entry("gateway_decision", "rejected_locally"),
                Map.entry("decider_limiter", "input_tpm"), Map.entry("decider_scope", "tenant:globex"),
                Map.entry("code", "tenant_input_tpm_exhausted"), Map.entry("retry_after_ms", 1500L),
                Map.entry("attempts", 0L));
    }

    @Test
    void aRequestIsReadBackByItsTraceIdAsTheEventThatWasWritten() {
        RequestEvent waited = Events.request("0000000000000000000000000000000a", Traffic.T0)
                .caller("acme", "acme", "acme/app", "a1").estimate(100, 50, 0).usage(90, 60, 0)
                .queued(1_200_000_000L).borrowed().fallback("deployment_throttled")
                .decider(new dev.sluice.runtime.event.Decider("input_tpm", "deployment:openai-east", java.util.Optional.of("1s"),
                        true, true, java.util.OptionalLong.of(1_150_000_000L), java.util.OptionalLong.of(800_000_000L),
                        java.util.OptionalLong.of(4_200_000_000L), true))
                .attempt(dev.sluice.runtime.event.AttemptResult.THROTTLED).status(429, "rate_limited")
                .limitHit("input_tpm", 250).settlement(dev.sluice.runtime.event.Settlement.HELD).retryDelay(250).done()
                .attempt(dev.sluice.runtime.event.AttemptResult.ANSWERED).usage(90, 60, 0).done().build();
        RequestEvent refused = Traffic.e4();
        LedgerQueries q = record(List.of(waited, refused, Traffic.e5()));
        // Two hours before now, with trace ids that carry no time: found around the time given.
        assertThat(q.request(waited.traceId(), Traffic.T0.plus(Duration.ofMinutes(9)))).hasValue(waited);
        assertThat(q.request(refused.traceId(), Traffic.T0)).hasValue(refused);
        assertThat(q.request("0000000000000000000000000000ffff", Traffic.T0)).isEmpty();
    }

    @Test
    void aRequestIsLookedForWithinTenMinutesOfTheTimeGiven() {
        LedgerQueries q = record(List.of(Traffic.e4())); // arrived at T0 + 3 min
        assertThat(q.request(Traffic.e4().traceId(), Traffic.T0.plus(Duration.ofMinutes(13)))).isPresent();
        assertThat(q.request(Traffic.e4().traceId(), Traffic.T0.plus(Duration.ofMinutes(13)).plusMillis(1))).isEmpty();
        assertThat(q.request(Traffic.e4().traceId(), Traffic.T0.minus(Duration.ofMinutes(7)))).isPresent();
        assertThat(q.request(Traffic.e4().traceId(), Traffic.T0.minus(Duration.ofMinutes(7)).minusMillis(1))).isEmpty();
    }

    @Test
    void aTraceIdSluiceMadeIsFoundByItselfAtTheTimeItCarries() {
        Instant made = Traffic.NOW.minus(Duration.ofDays(20));
        String trace = dev.sluice.runtime.event.TimedTraceIds.make(made.toEpochMilli());
        // The request arrived a moment after its id was made.
        RequestEvent e = Events.request(trace, made.plusMillis(3)).caller("acme-corp", "acme", "acme/search", "a1")
                .attempt(dev.sluice.runtime.event.AttemptResult.ANSWERED).done().build();
        LedgerQueries q = record(List.of(e, Traffic.e1()));
        assertThat(q.request(trace)).hasValue(e);
    }

    @Test
    void aCallersTraceIdIsFoundByItselfInTheLastHourAndAroundAGivenTimeBefore() {
        // A caller's trace id: its first 12 digits read as a time far from either request.
        RequestEvent recent = Events.request("4bf92f3577b34da6a3ce929d0e0e4736", Traffic.NOW.minus(Duration.ofMinutes(59)))
                .caller("acme-corp", "acme", "acme/search", "a1").build();
        RequestEvent older = Events.request("ffffffffffff4da6a3ce929d0e0e4736", Traffic.NOW.minus(Duration.ofMinutes(61)))
                .caller("acme-corp", "acme", "acme/search", "a1").build();
        LedgerQueries q = record(List.of(recent, older));
        assertThat(q.request(recent.traceId())).hasValue(recent);
        assertThat(q.request(older.traceId())).isEmpty();
        assertThat(q.request(older.traceId(), Traffic.NOW.minus(Duration.ofHours(1)))).hasValue(older);
    }

    @Test
    void ofATraceWithSeveralRequestsTheNewestIsRead() {
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        RequestEvent first = Events.request(trace, Traffic.T0).span(Events.span(1)).build();
        RequestEvent second = Events.request(trace, Traffic.T0.plusSeconds(30)).span(Events.span(2)).build();
        // The same instant as the second, another span: the larger span id.
        RequestEvent third = Events.request(trace, Traffic.T0.plusSeconds(30)).span(Events.span(3)).build();
        LedgerQueries q = record(List.of(second, third, first));
        assertThat(q.request(trace, Traffic.T0)).hasValue(third);
        assertThat(q.request(trace, Traffic.T0.minus(Duration.ofMinutes(10)))).hasValue(first);
    }

    @Test
    void aBatchWrittenAgainAfterACommitWhoseAnswerWasLostAddsNothing() throws SQLException {
        List<RequestEvent> batch = Traffic.all();
        try (dev.sluice.ledger.db.LedgerStore store = new dev.sluice.ledger.db.LedgerStore(Database.of(settings()),
                "w1")) {
            store.migrate();
            assertThat(store.write(batch)).isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(9, 0, 8));
            // What the writer does when a commit's answer is lost: the whole batch again, on a new connection.
            store.reset();
            assertThat(store.write(batch)).isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(0, 9, 0));
            // The same ids at another instant are another request (a replayed event has its own arrival).
            RequestEvent later = Events.request(Traffic.e1().traceId(), Traffic.T0.plusMillis(1))
                    .span(Traffic.e1().spanId()).caller("acme-corp", "acme", "acme/search", "a1").build();
            assertThat(store.write(List.of(later, Traffic.e2())))
                    .isEqualTo(new dev.sluice.ledger.db.LedgerStore.WriteResult(1, 1, 0));
        }
        assertThat(count("requests")).isEqualTo(10);
        assertThat(count("attempts")).isEqualTo(2);
        Usage u = LedgerQueries.of(Database.of(settings()), CLOCK).usage(WEEK, Grouping.TENANT);
        assertThat(u.total().requests()).isEqualTo(10);
        assertThat(u.total().inputTokens()).isEqualTo(1430);
    }

    @Test
    void aRequestsOneAttemptOnItsOwnDeploymentIsKeptInItsRowEveryFactOfIt() throws SQLException {
        RequestEvent e9 = Traffic.e9(); // one attempt, on the deployment it names: 429 from Anthropic
        // One attempt on another deployment than the request names: a row of its own.
        RequestEvent elsewhere = Events.request("0000000000000000000000000000000b", Traffic.T0)
                .attempt(dev.sluice.runtime.event.AttemptResult.ANSWERED).on("azure-west", "azure-openai", "gpt-4o")
                .done().build();
        LedgerQueries q = record(List.of(e9, elsewhere));
        assertThat(count("attempts")).isEqualTo(1);
        assertThat(single("SELECT deployment FROM attempts")).containsExactly(Map.entry("deployment", "azure-west"));
        Map<String, Object> row = single("SELECT attempt_started_at, attempt_result, attempt_status, attempt_reason, "
                + "attempt_limit_hit, attempt_provider_retry_after_ms, attempt_estimated_input, attempt_estimated_output, "
                + "attempt_estimated_cache_read, attempt_input_tokens, attempt_output_tokens, attempt_cache_read_tokens, "
                + "attempt_usage_reported, attempt_cache_reads_counted, attempt_settlement, attempt_latency_ns, "
                + "attempt_ttft_ns, attempt_retry_delay_ms FROM requests WHERE trace_id = '" + e9.traceId() + "'");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("attempt_started_at", Traffic.T0.plus(Duration.ofMinutes(8)).toEpochMilli() + 1);
        expected.put("attempt_result", "throttled");
        expected.put("attempt_status", 429L);
        expected.put("attempt_reason", "rate_limited");
        expected.put("attempt_limit_hit", "output_tpm");
        expected.put("attempt_provider_retry_after_ms", 30_000L);
        expected.put("attempt_estimated_input", 400L);
        expected.put("attempt_estimated_output", 200L);
        expected.put("attempt_estimated_cache_read", 0L);
        expected.put("attempt_input_tokens", 0L);
        expected.put("attempt_output_tokens", 0L);
        expected.put("attempt_cache_read_tokens", 0L);
        expected.put("attempt_usage_reported", 1L);
        expected.put("attempt_cache_reads_counted", 0L);
        expected.put("attempt_settlement", "settled");
        expected.put("attempt_latency_ns", 390_000_000L);
        expected.put("attempt_ttft_ns", null);
        expected.put("attempt_retry_delay_ms", null);
        assertThat(row).containsExactlyEntriesOf(expected);
        // Both read back as the events that were written.
        assertThat(q.request(e9.traceId(), Traffic.T0)).hasValue(e9);
        assertThat(q.request(elsewhere.traceId(), Traffic.T0)).hasValue(elsewhere);
    }

    @Test
    void anAttemptRowHoldsEveryFactOfItsEvent() throws SQLException {
        record(List.of(Traffic.e5()));
        Map<String, Object> first = single("SELECT * FROM attempts WHERE attempt = 1");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("trace_id", "00000000000000000000000000000005");
        expected.put("span_id", Traffic.e5().spanId());
        expected.put("attempt", 1L);
        expected.put("started_at", Traffic.T0.plus(Duration.ofMinutes(4)).toEpochMilli() + 1);
        expected.put("deployment", "openai-east");
        expected.put("provider", "openai");
        expected.put("provider_model", "gpt-4o-mini");
        expected.put("provider_scope", "{\"project\":\"prod\",\"region\":\"eastus\"}");
        expected.put("result", "throttled");
        expected.put("status", 429L);
        expected.put("reason", "rate_limited");
        expected.put("limit_hit", "input_tpm");
        expected.put("provider_retry_after_ms", 2000L);
        expected.put("estimated_input", 100L);
        expected.put("estimated_output", 50L);
        expected.put("estimated_cache_read", 0L);
        expected.put("input_tokens", 0L);
        expected.put("output_tokens", 0L);
        expected.put("cache_read_tokens", 0L);
        expected.put("usage_reported", 1L);
        expected.put("cache_reads_counted", 1L);
        expected.put("settlement", "held");
        expected.put("latency_ns", 20_000_000L);
        expected.put("ttft_ns", null);
        expected.put("retry_delay_ms", 2000L);
        assertThat(first).containsExactlyEntriesOf(expected);
        assertThat(count("attempts")).isEqualTo(2);
    }

    @Test
    void retentionDeletesOldRowsInBoundedStepsAndKeepsRollupsLonger() throws SQLException {
        List<RequestEvent> events = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Each retried once after a failure, so that the attempts are rows of their own (one attempt
            // would be kept in its request's row).
            events.add(Events.request(String.format("%032x", 100 + i), Traffic.NOW.minus(Duration.ofDays(40)))
                    .caller("acme-corp", "acme", "acme/search", "a1").estimate(100, 50, 0).usage(100, 50, 0)
                    .attempt(dev.sluice.runtime.event.AttemptResult.FAILED).status(502, "upstream_error")
                    .estimate(100, 50, 0).done()
                    .attempt(dev.sluice.runtime.event.AttemptResult.ANSWERED).estimate(100, 50, 0).usage(100, 50, 0)
                    .done().build());
        }
        events.add(Traffic.e1());
        long now = Traffic.NOW.toEpochMilli();
        try (dev.sluice.ledger.db.LedgerStore store = new dev.sluice.ledger.db.LedgerStore(Database.of(settings()),
                "w1")) {
            store.migrate();
            store.write(events);
            // At most 2 rows per table and step: 2 requests, 2 attempts, and the old hour's rollup rows
            // (1 usage, 1 attempt, 2 of the estimate ratios: input and output); then the rest of the 5
            // requests and 10 attempts.
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isEqualTo(8);
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isEqualTo(4);
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isEqualTo(3);
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isEqualTo(2);
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isEqualTo(2);
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(400), 2)).isZero();
            assertThat(count("requests")).isEqualTo(1);
            assertThat(count("attempts")).isZero(); // E1's one attempt is in its row
            // The daily rollups still hold the old requests: 60 days read whole days, 5 + 1 requests.
            LedgerQueries q = LedgerQueries.of(Database.of(settings()), CLOCK);
            Window sixtyDays = Window.last(Duration.ofDays(60), Traffic.NOW);
            assertThat(q.usage(sixtyDays, Grouping.TENANT).total().requests()).isEqualTo(6);
            assertThat(q.usage(sixtyDays, Grouping.TENANT).covered().from())
                    .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
            // With rollups kept 35 days, the old day goes too: its usage, attempt and two ratio rows.
            assertThat(store.deleteExpired(now, Duration.ofDays(30), Duration.ofDays(35), 100)).isEqualTo(4);
            assertThat(q.usage(sixtyDays, Grouping.TENANT).total().requests()).isEqualTo(1);
        }
    }

    static org.assertj.core.groups.Tuple pair(String g, long n) {
        return org.assertj.core.groups.Tuple.tuple(g, n);
    }

    static org.assertj.core.groups.Tuple triple(String g, long a, long b) {
        return org.assertj.core.groups.Tuple.tuple(g, a, b);
    }

    List<String> column(String sql) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (Connection c = Database.of(settings()).connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    long count(String table) throws SQLException {
        return (Long) single("SELECT COUNT(*) AS n FROM " + table).get("n");
    }

    /** The one row {@code sql} returns, column names in lower case, integers as longs. */
    Map<String, Object> single(String sql) throws SQLException {
        try (Connection c = Database.of(settings()).connect(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            assertThat(r.next()).as("a row from " + sql).isTrue();
            ResultSetMetaData md = r.getMetaData();
            Map<String, Object> out = new LinkedHashMap<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                Object v = r.getObject(i);
                if (v instanceof Integer n) {
                    v = n.longValue();
                }
                out.put(md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), v);
            }
            assertThat(r.next()).as("one row from " + sql).isFalse();
            return out;
        }
    }
}
