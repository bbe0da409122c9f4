package dev.sluice.sim.provider;

import dev.sluice.mock.limits.Admission;
import dev.sluice.mock.limits.ProviderBehaviour;
import dev.sluice.mock.limits.ProviderLimitModel;
import dev.sluice.mock.limits.ProviderLimits;

/**
 * A provider quota shared above several deployments (an Azure subscription and region, an OpenAI
 * organisation), in virtual time: one {@link ProviderLimitModel} every call to any of its
 * deployments must also pass. Its refusals name it by {@code owner}, as OpenAI's organisation
 * and project limits name theirs in the message, so the signal says which quota refused.
 */
public final class SharedQuota {

    private final String id;
    private final String owner;
    private final ProviderLimitModel model;
    private final Wire wire;

    /**
     * @param id the provider scope's id, for reports
     * @param owner the name its refusals give it
     * @param kind the dialect its refusals are worded in
     */
    public SharedQuota(String id, String owner, String kind, ProviderLimits limits, ProviderBehaviour behaviour) {
        this.id = id;
        this.owner = owner;
        this.model = new ProviderLimitModel(limits, behaviour, 0L, 0L);
        this.wire = new Wire(kind, behaviour);
    }

    public String id() {
        return id;
    }

    Admission tryAdmit(String tenant, long input, long cacheRead, long maxTokens, long now) {
        return model.tryAdmit(tenant, input, cacheRead, maxTokens, now);
    }

    void complete(dev.sluice.mock.limits.Ticket ticket, long outputTokens, long now) {
        model.complete(ticket, outputTokens, now);
    }

    /** The 429 of a refusal by this quota, naming it. */
    Wire.Read rejection(Admission refused, long now, long epochMillis) {
        Wire.Read r = wire.rejection(model.limits(), refused, model.reportedSnapshot(now), epochMillis);
        return new Wire.Read(r.signal().withQuotaOwner(owner), r.sdkHintMillis(), r.retryAfterHeader());
    }
}
