package dev.sluice.gateway.metrics;

import dev.sluice.adapt.AdaptiveSnapshot;
import dev.sluice.adapt.Mode;
import dev.sluice.governor.GovernorSnapshot;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.config.MetricsSettings;
import dev.sluice.store.BucketState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Gauges read from the governor's and the adaptive controllers' snapshots, taken once per scrape
 * (never per request): bucket levels, queue depths, borrowed rates, modes, multipliers, ramps.
 * A series whose bucket or deployment is gone from the configuration disappears with it.
 */
final class SnapshotGauges {

    private final SluiceRuntime runtime;
    private final boolean tenantLabel;
    private final boolean keyLabel;
    private final MultiGauge available;
    private final MultiGauge capacity;
    private final MultiGauge rateFactor;
    private final MultiGauge bucketPaused;
    private final MultiGauge queueDepth;
    private final MultiGauge borrowed;
    private final MultiGauge guaranteed;
    private final MultiGauge mode;
    private final MultiGauge multiplier;
    private final MultiGauge rampStage;
    private final MultiGauge rampFraction;

    SnapshotGauges(MeterRegistry r, SluiceRuntime runtime, MetricsSettings settings) {
        this.runtime = runtime;
        this.tenantLabel = settings.tenantLabel();
        this.keyLabel = settings.keyLabel();
        available = MultiGauge.builder("sluice.bucket.available").description(
                "What a bucket holds now: tokens or requests for a rate (negative is debt), free slots, what is left today")
                .register(r);
        capacity = MultiGauge.builder("sluice.bucket.capacity").description("The most a bucket holds").register(r);
        rateFactor = MultiGauge.builder("sluice.bucket.rate_factor").description(
                "The adaptive factor on a bucket's refill (1 when not adapted)").register(r);
        bucketPaused = MultiGauge.builder("sluice.bucket.paused").description(
                "Cooldown left on a bucket's dimension").baseUnit("seconds").register(r);
        queueDepth = MultiGauge.builder("sluice.queue.depth").description("Requests waiting, per deployment and class")
                .register(r);
        borrowed = MultiGauge.builder("sluice.tenant.borrowed").description(
                "Per minute a tenant uses above its guaranteed share of a deployment").register(r);
        guaranteed = MultiGauge.builder("sluice.tenant.guaranteed").description(
                "Per minute a tenant is guaranteed of a deployment").register(r);
        mode = MultiGauge.builder("sluice.deployment.mode").description(
                "1 for the deployment's current adaptive mode, 0 for the others").register(r);
        multiplier = MultiGauge.builder("sluice.deployment.multiplier").description(
                "The adaptive multiplier per limited rate").register(r);
        rampStage = MultiGauge.builder("sluice.deployment.ramp_stage").description("The ramp's stage index").register(r);
        rampFraction = MultiGauge.builder("sluice.deployment.ramp_fraction").description(
                "The ramp's fraction of the target capacity").register(r);
    }

    /** Reads the snapshots and sets every gauge. */
    void refresh() {
        GovernorSnapshot snap = runtime.governor().snapshot();
        List<MultiGauge.Row<?>> avail = new ArrayList<>();
        List<MultiGauge.Row<?>> cap = new ArrayList<>();
        List<MultiGauge.Row<?>> factor = new ArrayList<>();
        List<MultiGauge.Row<?>> paused = new ArrayList<>();
        for (BucketState b : snap.buckets()) {
            String level = EventMeters.level(b.key());
            if (!shown(level)) {
                continue;
            }
            for (BucketState.DimensionState d : b.dimensions()) {
                Tags t = Tags.of("scope_level", level, "scope", b.key(), "dimension", d.dimension().limiterName());
                avail.add(MultiGauge.Row.of(t, d.available()));
                cap.add(MultiGauge.Row.of(t, d.capacity()));
                factor.add(MultiGauge.Row.of(t, d.rateFactor()));
                paused.add(MultiGauge.Row.of(t, TimeUnit.NANOSECONDS.toMillis(d.pausedForNanos()) / 1000.0));
            }
        }
        available.register(avail, true);
        capacity.register(cap, true);
        rateFactor.register(factor, true);
        bucketPaused.register(paused, true);

        List<MultiGauge.Row<?>> depth = new ArrayList<>();
        List<MultiGauge.Row<?>> lent = new ArrayList<>();
        List<MultiGauge.Row<?>> share = new ArrayList<>();
        for (GovernorSnapshot.LaneSnapshot lane : snap.lanes()) {
            for (TrafficClass c : TrafficClass.inOrder()) {
                depth.add(MultiGauge.Row.of(Tags.of("deployment", lane.deployment(), "class", c.wireName()),
                        lane.queued().getOrDefault(c, 0)));
            }
            if (tenantLabel) {
                for (GovernorSnapshot.ShareSnapshot s : lane.shares()) {
                    perDimension(lent, lane.deployment(), s.tenant(), s.borrowedPerMinute());
                    perDimension(share, lane.deployment(), s.tenant(), s.guaranteedPerMinute());
                }
            }
        }
        queueDepth.register(depth, true);
        borrowed.register(lent, true);
        guaranteed.register(share, true);

        List<MultiGauge.Row<?>> modes = new ArrayList<>();
        List<MultiGauge.Row<?>> mult = new ArrayList<>();
        List<MultiGauge.Row<?>> stage = new ArrayList<>();
        List<MultiGauge.Row<?>> fraction = new ArrayList<>();
        for (AdaptiveSnapshot a : runtime.adaptive().map(x -> x.snapshots()).orElse(List.of())) {
            for (Mode m : Mode.values()) {
                modes.add(MultiGauge.Row.of(Tags.of("deployment", a.deployment(), "mode", m.wireName()),
                        a.mode() == m ? 1 : 0));
            }
            a.multipliers().forEach((d, v) -> mult.add(MultiGauge.Row.of(Tags.of("deployment", a.deployment(),
                    "dimension", d.limiterName()), v)));
            stage.add(MultiGauge.Row.of(Tags.of("deployment", a.deployment()), a.rampStage()));
            fraction.add(MultiGauge.Row.of(Tags.of("deployment", a.deployment()), a.rampFraction()));
        }
        mode.register(modes, true);
        multiplier.register(mult, true);
        rampStage.register(stage, true);
        rampFraction.register(fraction, true);
    }

    private static void perDimension(List<MultiGauge.Row<?>> out, String deployment, String tenant,
            Map<Dimension, Double> values) {
        values.forEach((d, v) -> out.add(MultiGauge.Row.of(Tags.of("deployment", deployment, "tenant", tenant,
                "dimension", d.limiterName()), v)));
    }

    /** Shared buckets always; a tenant's own only with tenant labels, a key's only with key labels. */
    private boolean shown(String level) {
        if (level.equals(ScopeLevel.TENANT.prefix()) || level.equals(ScopeLevel.TEAM.prefix())) {
            return tenantLabel;
        }
        if (level.equals(ScopeLevel.API_KEY.prefix())) {
            return keyLabel;
        }
        return true;
    }
}
