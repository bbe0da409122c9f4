package dev.sluice.store.redis;

import dev.sluice.runtime.request.InvalidRefunds;
import io.lettuce.core.ScriptOutputType;

/**
 * The tenants' refunds of invalid requests counted in Redis, so that the allowance is the fleet's,
 * not each replica's: one small hash per tenant (the window's start and the refunds in it), read
 * and written by one script, so two replicas never both give the last refund. Time is Redis's own
 * (its {@code TIME}), or the store's test clock. Touched only when a provider refuses a request as
 * invalid, never on the common path.
 *
 * <p>When Redis cannot answer, the refund is decided by an allowance counted in this process
 * ({@link InvalidRefunds#local()}): during an outage a fleet of N replicas refunds at most N times
 * the allowance, as it would without a shared store.
 */
public final class RedisInvalidRefunds implements InvalidRefunds {

    /** The window is one minute from its first refund; the key outlives its window by as much, then goes. */
    static final String SCRIPT = """
            local now = tonumber(ARGV[1])
            if now < 0 then
              local t = redis.call('TIME')
              now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            local cap = tonumber(ARGV[2])
            local start = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
            local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
            if n == 0 or now - start >= 60000 then
              start = now
              n = 0
            end
            if n >= cap then
              return 0
            end
            redis.call('HSET', KEYS[1], 's', start, 'n', n + 1)
            redis.call('PEXPIRE', KEYS[1], 120000)
            return 1
            """;

    private final RedisQuotaStore store;
    private final InvalidRefunds whileDown = InvalidRefunds.local();

    RedisInvalidRefunds(RedisQuotaStore store) {
        this.store = store;
    }

    @Override
    public boolean refund(String org, String tenant, int perMinute, long nowNanos) {
        if (perMinute <= 0) {
            return false;
        }
        RedisLink link = store.link();
        long now = store.config().testClock().map(c -> c.epochMillis()).orElse(-1L);
        try {
            Long granted = link.await(link.commands().eval(SCRIPT, ScriptOutputType.INTEGER,
                    new String[] {store.keys().invalidRefunds(org, tenant)}, Long.toString(now),
                    Integer.toString(perMinute)));
            return granted != null && granted == 1L;
        } catch (RuntimeException e) {
            return whileDown.refund(org, tenant, perMinute, nowNanos);
        }
    }
}
