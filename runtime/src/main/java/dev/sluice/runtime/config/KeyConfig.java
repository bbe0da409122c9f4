package dev.sluice.runtime.config;

import dev.sluice.governor.TrafficClass;
import dev.sluice.limits.Limits;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One client API key. Only the SHA-256 of its secret is held.
 *
 * @param id the key id (never the secret); bucket scope {@code key:id}; unique across the file
 * @param org its organisation
 * @param tenant its tenant
 * @param team its team's scope id ({@code tenant/team})
 * @param secretSha256 SHA-256 of the secret, 32 bytes; empty when its {@code secret_env} is not set
 * @param secretSource where the secret comes from, for messages: {@code secret_env FOO}, {@code key_sha256}, {@code secret}
 * @param profiles the model profiles it may use
 * @param trafficClass its default class
 * @param maxClass the highest-precedence class it may ask for
 * @param deadline its default deadline, if any; a request header may only shorten it
 * @param limits its own limits
 * @param paused whether an operator paused it
 */
public record KeyConfig(String id, String org, String tenant, String team, Optional<byte[]> secretSha256,
        String secretSource, List<String> profiles, TrafficClass trafficClass, TrafficClass maxClass,
        Optional<Duration> deadline, Limits limits, boolean paused) {

    public KeyConfig {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(org, "org");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(team, "team");
        Objects.requireNonNull(secretSha256, "secretSha256");
        secretSha256 = secretSha256.map(byte[]::clone);
        Objects.requireNonNull(secretSource, "secretSource");
        profiles = List.copyOf(profiles);
        Objects.requireNonNull(trafficClass, "trafficClass");
        Objects.requireNonNull(maxClass, "maxClass");
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(limits, "limits");
    }

    /** The SHA-256 of the secret (a copy), if known. */
    @Override
    public Optional<byte[]> secretSha256() {
        return secretSha256.map(byte[]::clone);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyConfig k && k.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "KeyConfig[" + id + " " + tenant + "/" + team + "]";
    }
}
