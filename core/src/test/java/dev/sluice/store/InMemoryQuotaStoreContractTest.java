package dev.sluice.store;

import dev.sluice.time.FakeClock;
import java.time.ZoneId;

/** The in-memory store against the store contract. */
class InMemoryQuotaStoreContractTest extends QuotaStoreContract {

    @Override
    protected QuotaStore createStore(FakeClock clock, ZoneId zone) {
        return new InMemoryQuotaStore(clock, zone);
    }
}
