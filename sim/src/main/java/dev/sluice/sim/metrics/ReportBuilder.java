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
     * @param header fields put first in the JSON object (scenario, strategy, seed ...)
     */
    public static RunReport build(String scenario, String strategy, RunRecorder rec,
            Map<String, ProviderUsage.Totals> providers, Map<String, Double> weights, long lost,
            Map<String, Object> header) {
        ObjectNode o = MAPPER.createObjectNode();
        header.forEach((k, v) -> o.set(k, MAPPER.valueToTree(v)));
        double rate429 = rec.dispatched == 0 ? 0 : (double) rec.provider429s / rec.dispatched;
        ObjectNode deployments = MAPPER.createObjectNode();
        double utilSum = 0;
        double jainMin = 1;
        double shareMax = 0;
        double saturatedMin = 1;
        List<String> saturated = new ArrayList<>();
        for (var e : providers.entrySet()) {
            String dep = e.getKey();
            ProviderUsage.Totals t = e.getValue();
            double[] capacity = {t.rpmCapacity(), t.inputCapacity(), t.outputCapacity(), t.totalCapacity()};
            double[] accepted = {t.acceptedRequests(), t.acceptedInput(), t.acceptedOutput(),
                t.acceptedInput() + t.acceptedOutput()};
            Map<String, double[]> off = rec.offered.getOrDefault(dep, Map.of());
            Map<String, double[]> srv = rec.served.getOrDefault(dep, Map.of());
            double[] offeredTotal = new double[4];
            off.values().forEach(a -> {
                for (int i = 0; i < 4; i++) {
                    offeredTotal[i] += a[i];
                }
            });
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
                byLimit.set(RunRecorder.RATES[i], d);
                if (ratio > bindingRatio) {
                    bindingRatio = ratio;
                    binding = i;
                }
            }
            ObjectNode dn = MAPPER.createObjectNode();
            double util = binding < 0 ? 0 : accepted[binding] / capacity[binding];
            utilSum += util;
            dn.put("binding_limit", binding < 0 ? "none" : RunRecorder.RATES[binding]);
            dn.put("demand_ratio", round(Math.max(0, bindingRatio)));
            dn.put("utilization", round(util));
            if (bindingRatio > 1) {
                saturated.add(dep);
                saturatedMin = Math.min(saturatedMin, util);
            }
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
            deployments.set(dep, dn);
        }
        double utilization = providers.isEmpty() ? 0 : utilSum / providers.size();
        o.put("provider_429_rate", round(rate429));
        o.put("utilization", round(utilization));
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
        return new RunReport(scenario, strategy, rate429, utilization, saturated, saturatedMin, rec.goodputTokens,
                jainMin, shareMax, lost, summaries, o);
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
