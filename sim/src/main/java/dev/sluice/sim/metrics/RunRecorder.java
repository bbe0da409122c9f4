package dev.sluice.sim.metrics;

import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.provider.ProviderReply;
import dev.sluice.sim.strategy.Attempt;
import dev.sluice.sim.strategy.SimRequest;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Collects what happened in one run: every request's end, every attempt's fate, offered and served
 * amounts per tenant and deployment, estimate errors. Only requests that arrive within the
 * accounted time (the scenario's duration) count towards demand.
 */
public final class RunRecorder {

    /** Rate limits tracked for utilisation and fairness, in this order. */
    static final String[] RATES = {"rpm", "input_tpm", "output_tpm", "tpm"};

    final Map<TrafficClass, GroupStats> classes = new EnumMap<>(TrafficClass.class);
    final Map<String, GroupStats> tenants = new TreeMap<>();
    /** deployment -> tenant -> amounts per {@link #RATES}. */
    final Map<String, Map<String, double[]>> offered = new TreeMap<>();
    final Map<String, Map<String, double[]>> served = new TreeMap<>();
    /** deployment -> per minute of arrival, offered amounts per {@link #RATES}. */
    final Map<String, java.util.List<double[]>> offeredBins = new TreeMap<>();
    /** deployment -> what the short-budget classes (interactive, critical) offered, per {@link #RATES}. */
    final Map<String, double[]> interactiveOffered = new TreeMap<>();
    long timedOutQueued;
    long timedOutGenerating;

    final Map<String, Long> rejectionCodes = new TreeMap<>();
    long requests;
    long ended;
    long dispatched;
    long provider429s;
    long providerErrors;
    long localRejections;
    long goodputTokens;
    long estimatedAttempts;
    double inputAbsError;
    double inputSignedError;
    double inputActual;
    double outputAbsError;
    double outputSignedError;
    double outputActual;

    public void arrived(SimRequest r) {
        requests++;
        add(offered, r);
        double[] bin = dev.sluice.sim.provider.ProviderUsage.bin(
                offeredBins.computeIfAbsent(r.deployment(), d -> new java.util.ArrayList<>()),
                (int) (r.arrivedAtNanos() / dev.sluice.sim.provider.ProviderUsage.BIN_NANOS));
        addTo(bin, r);
        if (r.trafficClass() == TrafficClass.INTERACTIVE || r.trafficClass() == TrafficClass.CRITICAL) {
            addTo(interactiveOffered.computeIfAbsent(r.deployment(), d -> new double[RATES.length]), r);
        }
    }

    private static void addTo(double[] a, SimRequest r) {
        a[0] += 1;
        a[1] += r.inputCharged();
        a[2] += r.outputTokens();
        a[3] += r.inputCharged() + r.outputTokens();
    }

    /**
     * The client's deadline passed with the request still queued in the gateway ({@code queued}) or
     * generating at the provider; the client gives up (record its end as {@link Outcome#TIMED_OUT}).
     */
    public void timedOut(SimRequest r, boolean queued) {
        if (queued) {
            timedOutQueued++;
            group(r).timedOutQueued++;
            tenant(r).timedOutQueued++;
        } else {
            timedOutGenerating++;
            group(r).timedOutGenerating++;
            tenant(r).timedOutGenerating++;
        }
    }

    private static void add(Map<String, Map<String, double[]>> m, SimRequest r) {
        addTo(m.computeIfAbsent(r.deployment(), d -> new TreeMap<>())
                .computeIfAbsent(r.tenant(), t -> new double[RATES.length]), r);
    }

    /**
     * Attempts per deployment they ran on and class: deployment -> class -> count. A request of a
     * profile with several deployments may run on one other than its first.
     */
    private final Map<String, Map<String, Long>> ranOn = new TreeMap<>();
    /** Attempts per deployment they ran on and tenant. */
    private final Map<String, Map<String, Long>> ranOnByTenant = new TreeMap<>();
    /** Provider 429s per deployment that answered them. */
    private final Map<String, Long> provider429sOn = new TreeMap<>();

    /** Attempts per deployment and class, as they ran. */
    public Map<String, Map<String, Long>> attemptsByDeployment() {
        return java.util.Collections.unmodifiableMap(ranOn);
    }

    /** Attempts per deployment and tenant, as they ran. */
    public Map<String, Map<String, Long>> attemptsByDeploymentAndTenant() {
        return java.util.Collections.unmodifiableMap(ranOnByTenant);
    }

    /** Provider 429s per deployment. */
    public Map<String, Long> provider429sByDeployment() {
        return java.util.Collections.unmodifiableMap(provider429sOn);
    }

    public void dispatched(Attempt a, String deployment) {
        ranOn.computeIfAbsent(deployment, d -> new TreeMap<>()).merge(a.request().trafficClass().wireName(), 1L,
                Long::sum);
        ranOnByTenant.computeIfAbsent(deployment, d -> new TreeMap<>()).merge(a.request().tenant(), 1L, Long::sum);
        dispatched++;
        group(a.request()).attempts++;
        tenant(a.request()).attempts++;
    }

    public void rejectedLocally(Attempt a, String code) {
        localRejections++;
        rejectionCodes.merge(code, 1L, Long::sum);
        group(a.request()).localRejections++;
        tenant(a.request()).localRejections++;
    }

    public void replied(Attempt a, String deployment, ProviderReply reply) {
        SimRequest r = a.request();
        switch (reply.outcome()) {
            case RATE_LIMITED, TOO_LARGE -> {
                provider429sOn.merge(deployment, 1L, Long::sum);
                provider429s++;
                group(r).provider429s++;
                tenant(r).provider429s++;
            }
            case SERVER_ERROR, OVERLOADED, RESET -> {
                providerErrors++;
                group(r).providerErrors++;
                tenant(r).providerErrors++;
            }
            case SUCCESS -> {
                if (a.estimated()) {
                    estimatedAttempts++;
                    inputAbsError += Math.abs(a.estimatedInput() - r.inputCharged());
                    inputSignedError += a.estimatedInput() - r.inputCharged();
                    inputActual += r.inputCharged();
                    outputAbsError += Math.abs(a.estimatedOutput() - reply.outputTokens());
                    outputSignedError += a.estimatedOutput() - reply.outputTokens();
                    outputActual += reply.outputTokens();
                }
            }
        }
    }

    /** The request ended; {@code accounted} when it arrived within the scenario's duration. */
    public void ended(SimRequest r, Outcome o, long queuedNanos, long endedAtNanos) {
        ended++;
        long latency = endedAtNanos - r.arrivedAtNanos();
        group(r).ended(o, queuedNanos, latency);
        tenant(r).ended(o, queuedNanos, latency);
        if (o == Outcome.SUCCESS) {
            goodputTokens += r.promptTokens() + r.outputTokens();
            add(served, r);
        }
    }

    /** Requests that arrived and whose client has not seen them end. */
    public long open() {
        return requests - ended;
    }

    private GroupStats group(SimRequest r) {
        return classes.computeIfAbsent(r.trafficClass(), c -> new GroupStats());
    }

    private GroupStats tenant(SimRequest r) {
        return tenants.computeIfAbsent(r.tenant(), t -> new GroupStats());
    }
}
