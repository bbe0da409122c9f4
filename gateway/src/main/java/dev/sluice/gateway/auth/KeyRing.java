package dev.sluice.gateway.auth;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import dev.sluice.runtime.control.RetiredSecrets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves a presented API key to its place in the key tree. Only SHA-256 hashes of secrets are
 * held. The presented key is hashed, the hash selects a candidate, and the candidate's hash is
 * compared with {@link MessageDigest#isEqual} (constant time); timing can at most reveal something
 * about a hash, never about a secret.
 */
public final class KeyRing {

    /** Keyed by the raw hash bytes: no hex string per lookup. */
    private final Map<ByteBuffer, Entry> byHash;

    /** {@code untilMillis}: {@code Long.MAX_VALUE} for a key's secret, the overlap's end for a rotated one. */
    private record Entry(byte[] hash, KeyConfig key, long untilMillis) {}

    private KeyRing(Map<ByteBuffer, Entry> byHash) {
        this.byHash = byHash;
    }

    /** The keys of {@code config} whose secret is known. */
    public static KeyRing of(SluiceConfig config) {
        return of(config, List.of());
    }

    /** The keys of {@code config}, and the old secrets of rotated keys until their overlap ends. */
    public static KeyRing of(SluiceConfig config, List<RetiredSecrets.Retired> retired) {
        Map<ByteBuffer, Entry> m = new HashMap<>();
        Map<String, KeyConfig> byId = new HashMap<>();
        for (KeyConfig k : config.keys()) {
            byId.put(k.id(), k);
            k.secretSha256().ifPresent(h -> m.put(ByteBuffer.wrap(h), new Entry(h, k, Long.MAX_VALUE)));
        }
        for (RetiredSecrets.Retired r : retired) {
            KeyConfig k = byId.get(r.keyId());
            byte[] h = r.sha256();
            if (k != null) {
                m.putIfAbsent(ByteBuffer.wrap(h), new Entry(h, k, r.until().toEpochMilli()));
            }
        }
        return new KeyRing(m);
    }

    /** The key whose secret is {@code presented}, if any (a rotated key's old secret, within its overlap). */
    public Optional<KeyConfig> resolve(String presented, long nowMillis) {
        Entry e = entry(presented);
        return e != null && e.untilMillis > nowMillis ? Optional.of(e.key) : Optional.empty();
    }

    /** The key whose secret is {@code presented}, if any; a rotated key's old secret whatever the time. */
    public Optional<KeyConfig> resolve(String presented) {
        return Optional.ofNullable(entry(presented)).map(Entry::key);
    }

    private Entry entry(String presented) {
        if (presented == null || presented.isEmpty()) {
            return null;
        }
        byte[] hash = ConfigLoader.sha256(presented);
        Entry e = byHash.get(ByteBuffer.wrap(hash));
        if (e == null || !MessageDigest.isEqual(e.hash, hash)) {
            return null;
        }
        return e;
    }

    /** How many keys can authenticate. */
    public int size() {
        return byHash.size();
    }
}
