package dev.sluice.gateway.auth;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HashMap;
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

    private record Entry(byte[] hash, KeyConfig key) {}

    private KeyRing(Map<ByteBuffer, Entry> byHash) {
        this.byHash = byHash;
    }

    /** The keys of {@code config} whose secret is known. */
    public static KeyRing of(SluiceConfig config) {
        Map<ByteBuffer, Entry> m = new HashMap<>();
        for (KeyConfig k : config.keys()) {
            k.secretSha256().ifPresent(h -> m.put(ByteBuffer.wrap(h), new Entry(h, k)));
        }
        return new KeyRing(m);
    }

    /** The key whose secret is {@code presented}, if any. */
    public Optional<KeyConfig> resolve(String presented) {
        if (presented == null || presented.isEmpty()) {
            return Optional.empty();
        }
        byte[] hash = ConfigLoader.sha256(presented);
        Entry e = byHash.get(ByteBuffer.wrap(hash));
        if (e == null || !MessageDigest.isEqual(e.hash, hash)) {
            return Optional.empty();
        }
        return Optional.of(e.key);
    }

    /** How many keys can authenticate. */
    public int size() {
        return byHash.size();
    }
}
