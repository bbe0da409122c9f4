package dev.sluice.gateway.metrics;

import dev.sluice.ledger.Ledger;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Objects;

/**
 * Sluice's Prometheus metrics: the GenAI client metrics of the OpenTelemetry conventions and
 * Sluice's own for the governor, through Micrometer's Prometheus registry. Request and attempt
 * meters are fed by the lifecycle's events (this is a {@link RequestEventSink}); gauges of buckets,
 * queues, modes and the ledger are read from snapshots when scraped. Every metric, label and
 * bound: docs/OBSERVABILITY.md.
 */
public final class SluiceMetrics implements RequestEventSink {

    /** The Prometheus text exposition format that {@link #scrape()} writes. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final SluiceConfig config;
    private final EventMeters events;
    private final Counter failures;
    private SnapshotGauges gauges;

    /** Metrics for a gateway serving {@code config}; its labels as {@code config.metrics()} says. */
    public SluiceMetrics(SluiceConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.events = new EventMeters(registry, config.metrics());
        events.declare(config.profiles().keySet());
        this.failures = Counter.builder("sluice.metrics.failures").description(
                "Request events the metrics could not count (a bug: please report it)").register(registry);
    }

    /**
     * Adds the gauges read from {@code runtime} and {@code ledger}. Called once, when the runtime
     * these metrics are the event sink of has been built.
     */
    public synchronized void bind(SluiceRuntime runtime, Ledger ledger) {
        if (gauges != null) {
            throw new IllegalStateException("bind: already bound (expected: once)");
        }
        gauges = new SnapshotGauges(registry, runtime, config.metrics());
        RolloutMeters.bind(registry, runtime.rollouts());
        WarmupMeters.bind(registry, runtime.warmups());
        Gauge.builder("sluice.requests.in_flight", runtime.counters(), c -> c.inFlight())
                .description("Requests arrived and not yet answered").register(registry);
        Gauge.builder("sluice.reservations.open", runtime.counters(), c -> c.reservationsOpen())
                .description("Reservations held and not yet settled or released").register(registry);
        FunctionCounter.builder("sluice.ledger.recorded", ledger, l -> l.stats().recorded())
                .description("Requests written to the usage ledger").register(registry);
        FunctionCounter.builder("sluice.ledger.unrecorded", ledger, l -> l.stats().unrecorded())
                .description("Requests the usage ledger could not record (buffer full, closed, database down)")
                .register(registry);
        Gauge.builder("sluice.ledger.pending", ledger, l -> l.stats().pending())
                .description("Requests waiting in the ledger's buffer").register(registry);
        Gauge.builder("sluice.ledger.write_lag", ledger, l -> l.stats().lastWriteLagMillis() / 1000.0)
                .baseUnit("seconds").description("For the last batch written: from the end of its oldest request to the commit")
                .register(registry);
    }

    /** Counts the request; never throws, since a metric must never break the request it describes. */
    @Override
    public void onRequest(RequestEvent event) {
        try {
            events.onRequest(event);
        } catch (RuntimeException e) {
            failures.increment();
        }
    }

    /**
     * Every metric in the Prometheus text format, the snapshot gauges read now. Takes the
     * governor's snapshot, which with the Redis store reads Redis: call it off any event loop.
     */
    public synchronized String scrape() {
        if (gauges != null) {
            gauges.refresh();
        }
        return registry.scrape();
    }

    /** The registry, for an embedder's own meters. */
    public MeterRegistry registry() {
        return registry;
    }
}
