package dev.sluice.bench.load;

import java.time.Duration;
import java.util.Objects;

/**
 * One measured run: where to send, how many connections, which answer form, and its bounds.
 * A run ends when its measuring time is over or when it has measured {@code maxRequests}
 * answers, whichever comes first.
 *
 * @param target      the row label, e.g. "direct"
 * @param host        loopback host to connect to
 * @param port        port to connect to
 * @param apiKey      bearer key to send; empty to send none
 * @param streaming   whether to ask for an SSE stream
 * @param connections HTTP/1.1 keep-alive connections, one request in flight on each
 * @param rate        0 for a closed loop (as fast as answers come back), else requests per second (open loop)
 * @param warmup      time spent before measuring
 * @param measure     longest measuring time
 * @param maxRequests most answers measured
 * @param promptChars length of the user message, which Sluice tokenizes to quote the request
 * @param distinctPrompts whether each user message ends with its own request number, so that no
 *                    two are equal and Sluice must count every one (otherwise all are the same
 *                    text, and after the first Sluice takes its count from its cache)
 */
public record LoadSpec(String target, String host, int port, String apiKey, boolean streaming, int connections,
        double rate, Duration warmup, Duration measure, long maxRequests, int promptChars, boolean distinctPrompts) {

    public LoadSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(measure, "measure");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 1..65535)");
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: >= 1)");
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate: " + rate + " (expected: 0 for closed loop, or > 0)");
        }
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warmup: " + warmup + " (expected: >= 0)");
        }
        if (measure.isNegative() || measure.isZero()) {
            throw new IllegalArgumentException("measure: " + measure + " (expected: > 0)");
        }
        if (promptChars < 0) {
            throw new IllegalArgumentException("promptChars: " + promptChars + " (expected: >= 0)");
        }
        if (maxRequests < 1) {
            throw new IllegalArgumentException("maxRequests: " + maxRequests + " (expected: >= 1)");
        }
    }

    /** Whether requests are sent on a schedule rather than as answers come back. */
    public boolean openLoop() {
        return rate > 0;
    }

    /** The same run, measured for {@code newMeasure} without a warm-up. */
    public LoadSpec withMeasure(Duration newMeasure) {
        return new LoadSpec(target, host, port, apiKey, streaming, connections, rate, Duration.ZERO, newMeasure,
                maxRequests, promptChars, distinctPrompts);
    }

    /** The same run aimed elsewhere. */
    public LoadSpec at(String newTarget, String newHost, int newPort, String newKey) {
        return new LoadSpec(newTarget, newHost, newPort, newKey, streaming, connections, rate, warmup, measure,
                maxRequests, promptChars, distinctPrompts);
    }
}
