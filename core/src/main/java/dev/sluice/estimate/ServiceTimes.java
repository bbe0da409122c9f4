package dev.sluice.estimate;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a call takes once sent, learned per route from the calls that were answered: time to
 * first token plus the output at the route's speed. Admission adds the prediction to the queue
 * wait, so a request that would still be generating when its client gives up is refused at once.
 *
 * <p>Per route it keeps exponentially weighted means of the time to first token (from streams,
 * where the first content is seen apart from the rest), of the time per output token, and of the
 * output a call actually produces. A whole (non-streamed) answer shows only its total, so its
 * time per token is that total less the route's learned time to first token, over its output.
 * The prediction for a request is its route's time to first token plus
 * {@code min(reserved output, mean output)} at the learned time per token: typical, not worst
 * case, since the prediction decides refusals and a pessimistic one would turn away work that
 * would have finished. Nothing is predicted (0) before the route has an answer to learn from.
 *
 * <p>Pure and deterministic: it keeps no clock and is told every duration. Thread-safe.
 */
public final class ServiceTimes {

    /** Weight of a new sample once the first {@code 1/SMOOTHING} have formed a plain mean. */
    static final double SMOOTHING = 0.1;

    private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();

    /** What one route has learned; replaced whole, so a reader sees one consistent state. */
    private record Route(Ewma ttftNanos, Ewma nanosPerToken, Ewma outputTokens) {
        static final Route EMPTY = new Route(Ewma.EMPTY, Ewma.EMPTY, Ewma.EMPTY);
    }

    /**
     * The expected duration, in nanoseconds, of a call on {@code route} reserving
     * {@code reservedOutputTokens}; 0 when the route has not been answered yet.
     */
    public long predictNanos(String route, long reservedOutputTokens) {
        Route r = routes.get(route);
        if (r == null || r.nanosPerToken.samples() == 0) {
            return 0;
        }
        double output = Math.min(reservedOutputTokens, r.outputTokens.value());
        return (long) Math.max(0, r.ttftNanos.value() + output * r.nanosPerToken.value());
    }

    /**
     * An answered call on {@code route}.
     *
     * @param totalNanos from sending to the last byte
     * @param firstTokenNanos from sending to the first content, for a stream; negative for a whole answer
     * @param outputTokens the output it produced
     */
    public void learn(String route, long totalNanos, long firstTokenNanos, long outputTokens) {
        if (totalNanos <= 0) {
            return;
        }
        routes.compute(route, (k, was) -> {
            Route r = was == null ? Route.EMPTY : was;
            Ewma ttft = r.ttftNanos;
            double generating;
            if (firstTokenNanos >= 0 && firstTokenNanos <= totalNanos) {
                ttft = ttft.add(firstTokenNanos, SMOOTHING);
                generating = totalNanos - firstTokenNanos;
            } else {
                generating = Math.max(0, totalNanos - ttft.value());
            }
            Ewma perToken = r.nanosPerToken.add(generating / Math.max(1, outputTokens), SMOOTHING);
            return new Route(ttft, perToken, r.outputTokens.add(outputTokens, SMOOTHING));
        });
    }
}
