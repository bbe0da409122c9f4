package dev.sluice.store.redis;

import dev.sluice.store.QuotaStore;
import dev.sluice.store.QuotaStoreContract;
import dev.sluice.time.FakeClock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The Redis store against the store contract, on the test's manual clock. */
class RedisQuotaStoreContractTest extends QuotaStoreContract {

    private final List<String> namespaces = new ArrayList<>();

    @Override
    protected QuotaStore createStore(FakeClock clock, ZoneId zone) {
        return RedisTestSupport.contractStore(clock, zone, namespaces);
    }

    @AfterEach
    void deleteKeys() {
        namespaces.forEach(RedisTestSupport::deleteNamespace);
    }
}
