package dev.sluice.store.redis;

import dev.sluice.store.QuotaStore;
import dev.sluice.store.QuotaStoreContract;
import dev.sluice.time.FakeClock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** Leased mode on one replica against the store contract, relaxed where docs/REDIS.md says it differs. */
class LeasedQuotaStoreContractTest extends QuotaStoreContract {

    private final List<String> namespaces = new ArrayList<>();

    @Override
    protected QuotaStore createStore(FakeClock clock, ZoneId zone) {
        return new LeasedQuotaStore(RedisTestSupport.contractStore(clock, zone, namespaces), clock,
                LeasedConfig.defaults());
    }

    @AfterEach
    void deleteKeys() {
        namespaces.forEach(RedisTestSupport::deleteNamespace);
    }
}
