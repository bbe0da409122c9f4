package dev.sluice.runtime.control;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Secrets of rotated keys that stay valid for the overlap the rotation asked for, so that clients
 * can move to the new secret without an outage. At most one per key: rotating again during an
 * overlap ends the older secret at once. Only hashes are held. Thread-safe.
 */
public final class RetiredSecrets {

    /**
     * A key's previous secret.
     *
     * @param keyId the key it still opens
     * @param sha256 the SHA-256 of the old secret
     * @param until when it stops opening the key
     */
    public record Retired(String keyId, byte[] sha256, Instant until) {
        public Retired {
            Objects.requireNonNull(keyId, "keyId");
            sha256 = sha256.clone();
            Objects.requireNonNull(until, "until");
        }

        @Override
        public byte[] sha256() {
            return sha256.clone();
        }
    }

    private final Map<String, Retired> byKey = new ConcurrentHashMap<>();

    /** Keeps {@code r} until its time; replaces the key's earlier one. */
    public void add(Retired r) {
        byKey.put(r.keyId(), r);
    }

    /** Forgets the old secret of {@code keyId} (the key was deleted). */
    public void remove(String keyId) {
        byKey.remove(keyId);
    }

    /** Those still valid at {@code nowMillis}; expired ones are dropped. */
    public List<Retired> valid(long nowMillis) {
        byKey.values().removeIf(r -> r.until().toEpochMilli() <= nowMillis);
        return List.copyOf(byKey.values());
    }
}
