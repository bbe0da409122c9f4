package dev.sluice.bench.ledger;

import dev.sluice.gateway.dashboard.LastMinute;
import dev.sluice.gateway.metrics.SluiceMetrics;
import dev.sluice.runtime.alert.AttemptTally;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.runtime.explain.RecentRequests;
import dev.sluice.time.NanoClock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What each observer of a request costs on the thread that ends the request (a gateway's event
 * loop): the Prometheus meters, the dashboard's last minute, the ring of recent requests and the
 * alert tally, each fed the same events as {@link LedgerWriteBench} makes, timed in this thread's
 * CPU time (what holds on a shared machine). The ledger's part on that thread is one offer to its
 * buffer, also timed; its writer's own CPU is {@link LedgerWriteBench}'s figure.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.sluice.bench.ledger.ObserveBench [--requests 100000] [--rounds 5]
 * </pre>
 */
public final class ObserveBench {

    private ObserveBench() {}

    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(LedgerWriteBench.option(args, "--requests", "100000"));
        int rounds = Integer.parseInt(LedgerWriteBench.option(args, "--rounds", "5"));
        List<RequestEvent> events = LedgerWriteBench.traffic(requests, 42);
        SluiceConfig config = ConfigLoader.parse("""
                ledger: { kind: off }
                deployments:
                  openai-east: { kind: openai-compatible, base_url: "http://127.0.0.1:9", limits: { rpm: 1000000 } }
                  azure-west: { kind: openai-compatible, base_url: "http://127.0.0.1:9", limits: { rpm: 1000000 } }
                  anthropic-main: { kind: anthropic, base_url: "http://127.0.0.1:9", limits: { rpm: 1000000 } }
                profiles:
                  fast: { deployment: openai-east, model: gpt-4o-mini }
                  big: { deployment: azure-west, model: gpt-4o }
                  claude: { deployment: anthropic-main, model: claude-sonnet-4 }
                orgs:
                  org: { tenants: { t: { teams: { x: { keys: { k: { secret: "observe-bench-secret-0001" } } } } } } }
                """, "observe-bench.yaml", v -> null);
        Map<String, RequestEventSink> sinks = new LinkedHashMap<>();
        sinks.put("metrics (SluiceMetrics)", new SluiceMetrics(config));
        sinks.put("dashboard (LastMinute)", new LastMinute(NanoClock.system()));
        sinks.put("recent requests ring", new RecentRequests());
        sinks.put("alert tally (AttemptTally)", new AttemptTally());
        sinks.put("ledger buffer offer", new LedgerOffer(requests));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "observers, %d requests (%d attempts) per round, %d rounds; CPU of this thread%n",
                requests, events.stream().mapToInt(e -> e.attemptEvents().size()).sum(), rounds);
        for (int r = 1; r <= rounds; r++) {
            StringBuilder line = new StringBuilder("round " + r + ":");
            double total = 0;
            for (Map.Entry<String, RequestEventSink> s : sinks.entrySet()) {
                RequestEventSink sink = s.getValue();
                if (sink instanceof LedgerOffer o) {
                    o.reset();
                }
                long t0 = mx.getCurrentThreadCpuTime();
                for (RequestEvent e : events) {
                    sink.onRequest(e);
                }
                double us = (mx.getCurrentThreadCpuTime() - t0) / 1e3 / events.size();
                total += us;
                line.append(String.format(Locale.ROOT, " %s %.2f us;", s.getKey(), us));
            }
            line.append(String.format(Locale.ROOT, " all %.2f us per request; load average %.1f", total,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
            System.out.println(line);
        }
    }

    /** The ledger's work on the event loop: a bounded queue's offer (as the ledger's buffer does). */
    private static final class LedgerOffer implements RequestEventSink {
        private final java.util.concurrent.ConcurrentLinkedQueue<RequestEvent> queue =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicInteger size = new java.util.concurrent.atomic.AtomicInteger();
        private final int capacity;

        LedgerOffer(int capacity) {
            this.capacity = capacity;
        }

        void reset() {
            queue.clear();
            size.set(0);
        }

        @Override
        public void onRequest(RequestEvent event) {
            if (size.incrementAndGet() <= capacity) {
                queue.offer(event);
            }
        }
    }
}
