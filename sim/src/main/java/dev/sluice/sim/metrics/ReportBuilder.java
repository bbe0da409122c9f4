package dev.sluice.sim.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.governor.TrafficClass;
import dev.sluice.sim.provider.ProviderUsage;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Turns a {@link RunRecorder} and the providers' totals into a {@link RunReport}. */
public final class ReportBuilder {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ReportBuilder() {}

    /**
     * @param providers totals per deployment, in configuration order
     * @param weights tenant weights
     * @param providerChangesLimits whether a provider cut its own limits in this run
     * @param header fields put first in the JSON object (scenario, strategy, seed ...)
     */
    public static RunReport build(String scenario, String strategy, RunRecorder rec,
            Map<String, ProviderUsage.Totals> providers, Map<String, Double> weights, long lost,
            boolean providerChangesLimits, Map<String, Object> header) {
        ObjectNode o = MAPPER.createObjectNode();
        header.forEach((k, v) -> o.set(k, MAPPER.valueToTree(v)));
        double rate429 = rec.dispatched == 0 ? 0 : (double) rec.provider429s / rec.dispatched;
        ObjectNode deployments = MAPPER.createObjectNode();
        double jainMin = 1;
        double shareMax = 0;
        double saturatedMin = Double.NaN;
        boolean interactiveFits = true;
        List<String> saturated = new ArrayList<>();
        for (var e : providers.entrySet()) {
            String dep = e.getKey();
            ProviderUsage.Totals t = e.getValue();
            double[] capacity = t.capacity();
            double[] accepted = t.accepted();
            Map<String, double[]> off = rec.offered.getOrDefault(dep, Map.of());
            Map<String, double[]> srv = rec.served.getOrDefault(dep, Map.of());
            double[] offeredTotal = new double[4];
            off.values().forEach(a -> {
                for (int i = 0; i < 4; i++) {
                    offeredTotal[i] += a[i];
                }
            });
            double[] interactive = rec.interactiveOffered.getOrDefault(dep, new double[4]);
            int binding = -1;
            double bindingRatio = -1;
            ObjectNode byLimit = MAPPER.createObjectNode();
            for (int i = 0; i < 4; i++) {
                if (capacity[i] <= 0) {
                    continue;
                }
                double ratio = offeredTotal[i] / capacity[i];
                ObjectNode d = MAPPER.createObjectNode();
                d.put("capacity", round(capacity[i]));
                d.put("offered", round(offeredTotal[i]));
                d.put("accepted", round(accepted[i]));
                d.put("demand_ratio", round(ratio));
                d.put("utilization", round(accepted[i] / capacity[i]));
                d.put("interactive_demand_ratio", round(interactive[i] / capacity[i]));
                byLimit.set(RunRecorder.RATES[i], d);
                interactiveFits &= interactive[i] <= capacity[i];
                if (ratio > bindingRatio) {
                    bindingRatio = ratio;
                    binding = i;
                }
            }
            ObjectNode dn = MAPPER.createObjectNode();
            dn.put("binding_limit", binding < 0 ? "none" : RunRecorder.RATES[binding]);
            dn.put("demand_ratio", round(Math.max(0, bindingRatio)));
            Saturation sat = binding < 0 ? new Saturation(0, 0, 0)
                    : saturation(t, rec.offeredBins.getOrDefault(dep, List.of()), binding);
            dn.put("saturated_minutes", round(sat.nanos() / 60e9));
            if (sat.nanos() > 0) {
                double util = sat.accepted() / sat.capacity();
                dn.put("utilization", round(util));
                saturated.add(dep);
                saturatedMin = Double.isNaN(saturatedMin) ? util : Math.min(saturatedMin, util);
            } else {
                dn.putNull("utilization");
            }
            dn.put("utilization_whole_run", round(binding < 0 ? 0 : accepted[binding] / capacity[binding]));
            int dim = binding < 0 ? 0 : binding;
            List<String> names = new ArrayList<>(off.keySet());
            double[] demand = new double[names.size()];
            double[] got = new double[names.size()];
            double[] w = new double[names.size()];
            for (int i = 0; i < names.size(); i++) {
                demand[i] = off.get(names.get(i))[dim];
                double[] s = srv.get(names.get(i));
                got[i] = s == null ? 0 : s[dim];
                w[i] = weights.getOrDefault(names.get(i), 1.0);
            }
            double total = 0;
            for (double g : got) {
                total += g;
            }
            double[] fair = Fairness.fairShares(demand, w, total);
            double jain = Fairness.jain(demand, got, fair);
            double share = Fairness.shareError(got, fair);
            jainMin = Math.min(jainMin, jain);
            shareMax = Math.max(shareMax, share);
            dn.put("jain_index", round(jain));
            dn.put("weighted_share_error", round(share));
            dn.put("contended_tenants", Fairness.contended(demand, fair));
            ObjectNode tn = MAPPER.createObjectNode();
            for (int i = 0; i < names.size(); i++) {
                ObjectNode x = MAPPER.createObjectNode();
                x.put("weight", w[i]);
                x.put("offered", round(demand[i]));
                x.put("served", round(got[i]));
                x.put("fair", round(fair[i]));
                tn.set(names.get(i), x);
            }
            dn.set("tenants", tn);
            dn.set("limits", byLimit);
            dn.put("provider_arrivals", t.arrivals());
            dn.put("provider_rejections", t.rejections());
            ObjectNode why = MAPPER.createObjectNode();
            t.rejectionsByLimit().forEach(why::put);
            dn.set("provider_rejections_by_limit", why);
            // Where attempts ran, by class: a profile with several deployments sends some to one that is not its first.
            ObjectNode ran = MAPPER.createObjectNode();
            rec.attemptsByDeployment().getOrDefault(dep, Map.of()).forEach(ran::put);
            dn.set("attempts_by_class", ran);
            ObjectNode ranFor = MAPPER.createObjectNode();
            rec.attemptsByDeploymentAndTenant().getOrDefault(dep, Map.of()).forEach(ranFor::put);
            dn.set("attempts_by_tenant", ranFor);
            deployments.set(dep, dn);
        }
        o.put("provider_429_rate", round(rate429));
        if (Double.isNaN(saturatedMin)) {
            o.putNull("utilization");
        } else {
            o.put("utilization", round(saturatedMin));
        }
        o.put("timeouts", rec.timedOutQueued + rec.timedOutGenerating);
        o.put("timeouts_queued", rec.timedOutQueued);
        o.put("timeouts_generating", rec.timedOutGenerating);
        o.put("interactive_fits", interactiveFits);
        o.put("provider_changes_limits", providerChangesLimits);
        o.put("goodput_tokens", rec.goodputTokens);
        o.put("jain_index", round(jainMin));
        o.put("weighted_share_error", round(shareMax));
        o.put("lost", lost);
        o.put("requests", rec.requests);
        o.put("succeeded", count(rec, Outcome.SUCCESS));
        o.put("dispatched", rec.dispatched);
        o.put("provider_429s", rec.provider429s);
        o.put("provider_errors", rec.providerErrors);
        o.put("local_rejections", rec.localRejections);
        ObjectNode codes = MAPPER.createObjectNode();
        rec.rejectionCodes.forEach(codes::put);
        o.set("local_rejection_codes", codes);
        Map<TrafficClass, RunReport.ClassSummary> summaries = new EnumMap<>(TrafficClass.class);
        ObjectNode classes = MAPPER.createObjectNode();
        rec.classes.forEach((c, g) -> {
            classes.set(c.wireName(), group(g));
            summaries.put(c, new RunReport.ClassSummary(g.requests, g.successRate(), g.queueWait.millis(99)));
        });
        o.set("classes", classes);
        ObjectNode tenants = MAPPER.createObjectNode();
        rec.tenants.forEach((t, g) -> tenants.set(t, group(g)));
        o.set("tenants", tenants);
        o.set("deployments", deployments);
        if (rec.estimatedAttempts > 0) {
            ObjectNode est = MAPPER.createObjectNode();
            est.put("samples", rec.estimatedAttempts);
            est.put("input_abs_error", round(rec.inputActual == 0 ? 0 : rec.inputAbsError / rec.inputActual));
            est.put("input_bias", round(rec.inputActual == 0 ? 0 : rec.inputSignedError / rec.inputActual));
            est.put("output_abs_error", round(rec.outputActual == 0 ? 0 : rec.outputAbsError / rec.outputActual));
            est.put("output_bias", round(rec.outputActual == 0 ? 0 : rec.outputSignedError / rec.outputActual));
            o.set("estimate_error", est);
        } else {
            o.putNull("estimate_error");
        }
        return new RunReport(scenario, strategy, rate429, saturatedMin, saturated, rec.goodputTokens, jainMin,
                shareMax, lost, rec.timedOutQueued + rec.timedOutGenerating, interactiveFits, providerChangesLimits,
                summaries, o);
    }

    private record Saturation(long nanos, double capacity, double accepted) {}

    /**
     * The saturated minutes of one deployment, on its binding limit, from an ideal server that
     * takes the demand offered (by arrival time, in the provider's own count) in order and serves
     * as much as the limits in force allow: each minute the refill plus what its store (a bucket's
     * content, full at the start, refilled by what goes unused) holds. A minute is saturated when
     * the ideal server ends it with demand still waiting. The capacity of the saturated minutes is
     * the refill of the limits in force in them, plus, at the start of each run of saturated
     * minutes, what the provider's own limiter held in store then (so a strategy that spent less
     * before has more to spend, and nothing it could have used is left out).
     */
    private static Saturation saturation(ProviderUsage.Totals t, List<double[]> offered, int binding) {
        double[][] cap = t.capacityBins();
        double[] demand = new double[cap.length];
        for (int m = 0; m < offered.size() && cap.length > 0; m++) {
            int b = (int) Math.min(cap.length - 1, (long) m * ProviderUsage.BIN_NANOS / t.binNanos());
            demand[b] += offered.get(m)[binding];
        }
        double storeMax = t.store()[binding];
        double store = storeMax;
        double waiting = 0;
        long nanos = 0;
        double capacity = 0;
        double accepted = 0;
        boolean previous = false;
        for (int b = 0; b < cap.length; b++) {
            double available = cap[b][binding] + store;
            double want = waiting + demand[b];
            double served = Math.min(want, available);
            waiting = want - served;
            store = Math.min(storeMax, available - served);
            // Saturated: demand left over, beyond a rounding's worth.
            boolean saturated = cap[b][binding] > 0 && waiting > 1e-6 * Math.max(1, cap[b][binding]);
            if (saturated) {
                nanos += t.binNanos();
                capacity += cap[b][binding] + (previous ? 0 : t.heldBins()[b][binding]);
                accepted += t.acceptedBins()[b][binding];
            }
            previous = saturated;
        }
        return new Saturation(nanos, capacity, accepted);
    }

    private static long count(RunRecorder rec, Outcome o) {
        long n = 0;
        for (GroupStats g : rec.classes.values()) {
            n += g.count(o);
        }
        return n;
    }

    private static ObjectNode group(GroupStats g) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("requests", g.requests);
        n.put("success_rate", round(g.successRate()));
        n.put("succeeded", g.count(Outcome.SUCCESS));
        n.put("rejected_locally", g.count(Outcome.REJECTED_LOCALLY));
        n.put("failed_provider_429", g.count(Outcome.PROVIDER_RATE_LIMITED));
        n.put("failed_provider_error", g.count(Outcome.PROVIDER_ERROR));
        n.put("too_large", g.count(Outcome.TOO_LARGE));
        n.put("timed_out", g.count(Outcome.TIMED_OUT));
        n.put("timed_out_queued", g.timedOutQueued);
        n.put("timed_out_generating", g.timedOutGenerating);
        n.put("attempts", g.attempts);
        n.put("local_rejections", g.localRejections);
        n.put("provider_429s", g.provider429s);
        n.put("provider_errors", g.providerErrors);
        n.set("queue_wait_ms", quantiles(g.queueWait));
        n.set("latency_ms", quantiles(g.latency));
        return n;
    }

    private static ObjectNode quantiles(Quantiles q) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("p50", round(q.millis(50)));
        n.put("p95", round(q.millis(95)));
        n.put("p99", round(q.millis(99)));
        return n;
    }

    /** Six decimals: enough for rates, and stable text across platforms. */
    static double round(double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
