package dev.sluice.sim.strategy;

import java.util.Objects;

/** One try of a request: the first, or a client retry. */
public final class Attempt {

    private final SimRequest request;
    private final int number;
    private final long submittedAtNanos;
    private long estimatedInput = -1;
    private long estimatedOutput = -1;

    public Attempt(SimRequest request, int number, long submittedAtNanos) {
        this.request = Objects.requireNonNull(request, "request");
        this.number = number;
        this.submittedAtNanos = submittedAtNanos;
    }

    public SimRequest request() {
        return request;
    }

    /** 0 for the first try. */
    public int number() {
        return number;
    }

    public long submittedAtNanos() {
        return submittedAtNanos;
    }

    /** Records what the strategy reserved for it, for the estimate-error metric. */
    public void estimate(long inputTokens, long outputTokens) {
        this.estimatedInput = inputTokens;
        this.estimatedOutput = outputTokens;
    }

    /** Whether {@link #estimate} was called. */
    public boolean estimated() {
        return estimatedInput >= 0;
    }

    public long estimatedInput() {
        return estimatedInput;
    }

    public long estimatedOutput() {
        return estimatedOutput;
    }

    @Override
    public String toString() {
        return "Attempt[" + request.id() + "#" + number + "]";
    }
}
