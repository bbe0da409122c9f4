package dev.sluice.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.governor.GovernorConfig;
import dev.sluice.governor.QuotaGovernor;
import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Dimension;
import dev.sluice.limits.Limits;
import dev.sluice.limits.Scope;
import dev.sluice.limits.ScopeLevel;
import dev.sluice.store.InMemoryQuotaStore;
import dev.sluice.time.NanoClock;
import io.vertx.core.MultiMap;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The caller's own quota in its answers' headers, read in place or, for a networked store, on a worker. */
class CallerQuotaTest {

    private long now = 1_000_000_000L;
    private final NanoClock clock = new NanoClock() {
        @Override
        public long nanos() {
            return now;
        }

        @Override
        public long epochMillis() {
            return 1_767_225_600_000L + now / 1_000_000;
        }
    };
    private final QuotaGovernor governor = new QuotaGovernor(GovernorConfig.builder()
            .scope(Scope.of(ScopeLevel.API_KEY, "k1"), Limits.builder().add(Dimension.REQUESTS, 600).build())
            .scope(Scope.of(ScopeLevel.TENANT, "acme"), Limits.builder().add(Dimension.TOTAL_TOKENS, 90_000).build())
            .build(), new InMemoryQuotaStore(clock, ZoneOffset.UTC), clock);
    private final KeyConfig key = new KeyConfig("k1", "org", "acme", "acme/search", Optional.empty(), "secret",
            List.of("chat"), TrafficClass.INTERACTIVE, TrafficClass.CRITICAL, Optional.empty(), Limits.none(), false);

    @Test
    void inPlaceEveryAnswerCarriesTheKeysAndTenantsQuota() {
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        new CallerQuota(governor).write(h, key);

        assertThat(h.get("RateLimit-Policy")).isEqualTo("\"key-rpm\";q=600;w=60, \"tenant-tpm\";q=90000;w=60");
        assertThat(h.get("RateLimit")).isEqualTo("\"key-rpm\";r=600, \"tenant-tpm\";r=90000");
        assertThat(h.get("x-ratelimit-limit-requests")).isEqualTo("600");
        assertThat(h.get("x-ratelimit-remaining-tokens")).isEqualTo("90000");
        assertThat(h.get("x-ratelimit-reset-requests")).isEqualTo("0ms");
    }

    @Test
    void inPlaceAReadingIsReusedForTenMilliseconds() {
        CallerQuota quota = new CallerQuota(governor);
        MultiMap h = MultiMap.caseInsensitiveMultiMap();
        quota.write(h, key);
        ((dev.sluice.governor.Decision.Admitted) governor.admit(new dev.sluice.governor.AdmissionRequest("r1",
                new dev.sluice.governor.RequestPath("org", "acme", "acme/search", "k1", "chat", "dep"),
                new dev.sluice.governor.Demand(10, 0, false), TrafficClass.INTERACTIVE,
                dev.sluice.governor.AdmissionRequest.NO_DEADLINE))).reservation();

        now += 9_000_000L;
        quota.write(h, key);
        assertThat(h.get("x-ratelimit-remaining-requests")).isEqualTo("600");
        now += 1_000_000L;
        quota.write(h, key);
        assertThat(h.get("x-ratelimit-remaining-requests")).isEqualTo("599");
    }

    @Test
    void onAWorkerAnswersCarryTheLatestReadingAndReadAtMostOncePerMaxAge() {
        ArrayDeque<Runnable> worker = new ArrayDeque<>();
        CallerQuota quota = new CallerQuota(governor, worker::add, 250_000_000L);

        MultiMap first = MultiMap.caseInsensitiveMultiMap();
        quota.write(first, key);
        quota.write(MultiMap.caseInsensitiveMultiMap(), key);
        assertThat(first.isEmpty()).as("nothing read yet: no headers rather than a wait").isTrue();
        assertThat(worker).as("one reading in flight at a time").hasSize(1);

        worker.poll().run();
        now += 100_000_000L;
        MultiMap second = MultiMap.caseInsensitiveMultiMap();
        quota.write(second, key);
        assertThat(second.get("RateLimit")).isEqualTo("\"key-rpm\";r=600, \"tenant-tpm\";r=90000");
        assertThat(worker).as("a reading younger than the max age is reused").isEmpty();

        now += 200_000_000L;
        quota.write(MultiMap.caseInsensitiveMultiMap(), key);
        assertThat(worker).as("an older one is refreshed").hasSize(1);
    }

    @Test
    void goDurationsLookLikeOpenAis() {
        assertThat(CallerQuota.goDuration(12)).isEqualTo("12ms");
        assertThat(CallerQuota.goDuration(1_500)).isEqualTo("1.5s");
        assertThat(CallerQuota.goDuration(1_050)).isEqualTo("1.05s");
        assertThat(CallerQuota.goDuration(2_005)).isEqualTo("2.005s");
        assertThat(CallerQuota.goDuration(61_250)).isEqualTo("1m1.25s");
        assertThat(CallerQuota.goDuration(360_000)).isEqualTo("6m0s");
        assertThat(CallerQuota.goDuration(3_723_000)).isEqualTo("1h2m3s");
    }
}
