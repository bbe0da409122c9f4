package dev.sluice.mock.limits;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one tenant sent and what the provider did with it.
 *
 * @param accepted requests admitted
 * @param limited rejections per limit kind
 * @param tooLarge requests rejected as larger than a minute's limit
 * @param completed admitted requests that ended
 * @param inputTokens input tokens charged on admission (cache reads excluded)
 * @param cacheReadTokens cache-read tokens declared by admitted requests
 * @param outputTokens output tokens reported at completion
 */
public record TenantStats(
        long accepted,
        Map<LimitKind, Long> limited,
        long tooLarge,
        long completed,
        long inputTokens,
        long cacheReadTokens,
        long outputTokens) {

    /** Nothing yet. */
    public static final TenantStats EMPTY = new TenantStats(0, Map.of(), 0, 0, 0, 0, 0);

    public TenantStats {
        EnumMap<LimitKind, Long> copy = new EnumMap<>(LimitKind.class);
        copy.putAll(limited);
        limited = Collections.unmodifiableMap(copy);
    }

    /** Rejections of any kind, too-large ones included. */
    public long rejected() {
        long sum = tooLarge;
        for (long n : limited.values()) {
            sum += n;
        }
        return sum;
    }

    /** Rejections by one limit. */
    public long limitedBy(LimitKind kind) {
        return limited.getOrDefault(kind, 0L);
    }
}
