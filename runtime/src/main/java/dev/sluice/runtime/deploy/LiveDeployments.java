package dev.sluice.runtime.deploy;

import dev.sluice.runtime.config.DeploymentConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The deployments in force, one {@link Version} per id, and the versions a change retired that
 * still have attempts in flight. Thread-safe: the runtime applies changes one at a time
 * ({@link #apply}); attempts open and close on any thread.
 *
 * <p>A version is made when a change adds its deployment (or replaces it: a new connection under
 * the same id), with a retry budget of its own. It is retired when a change removes or replaces
 * it: new attempts stop going to it at once (routing no longer has it), and it closes, telling
 * every {@link #onClosed} listener (the gateway forgets its upstream), as soon as no attempt is
 * open on it, at once if none was. An attempt opens when its reservation is admitted
 * ({@link #open}) and closes when that reservation is settled or released ({@link Version#close}).
 */
public final class LiveDeployments {

    private final ConcurrentHashMap<String, Version> live = new ConcurrentHashMap<>();
    private final List<Consumer<DeploymentConfig>> closed = new CopyOnWriteArrayList<>();

    /** The deployments of a runtime's first configuration, all live. */
    public LiveDeployments(Map<String, DeploymentConfig> deployments) {
        deployments.values().forEach(d -> live.put(d.id(), new Version(d)));
    }

    /** Calls {@code listener} with each retired version's configuration once it has closed. */
    public void onClosed(Consumer<DeploymentConfig> listener) {
        closed.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Puts {@code next} in force as {@code changes} says: retires the removed and replaced
     * versions, makes the added and replaced ones, and points the others at their new
     * configuration (its limits, capabilities) with their budget kept.
     */
    public void apply(Map<String, DeploymentConfig> next, DeploymentChanges changes) {
        List<Version> retired = new ArrayList<>();
        for (String id : changes.retired()) {
            Version v = live.remove(id);
            if (v != null) {
                retired.add(v);
            }
        }
        for (DeploymentConfig d : next.values()) {
            Version v = live.get(d.id());
            if (v == null) {
                live.put(d.id(), new Version(d));
            } else {
                v.config = d;
            }
        }
        retired.forEach(Version::retire);
    }

    /** The version in force of {@code id}; empty when the configuration has no such deployment. */
    public Optional<Version> version(String id) {
        return Optional.ofNullable(live.get(id));
    }

    /**
     * Opens an attempt on the version in force of {@code id}: it will not close until the
     * attempt's {@link Version#close}. Empty (nothing opened) when the deployment is gone.
     */
    public Optional<Version> open(String id) {
        Version v = live.get(id);
        while (v != null && !v.tryOpen()) {
            // Retired between the read and the open: the version in force now, if any, takes it.
            v = live.get(id);
        }
        return Optional.ofNullable(v);
    }

    /** One version of a deployment: its configuration, retry budget and attempts in flight. */
    public final class Version {
        private volatile DeploymentConfig config;
        private final RetryBudget retryBudget = RetryBudget.tenPercent();
        /** Attempts open on it; while live one more, which {@link #retire} takes away. */
        private int open = 1;
        private boolean retired;

        Version(DeploymentConfig config) {
            this.config = config;
        }

        /** The configuration of this version in force: its connection, and its latest limits. */
        public DeploymentConfig config() {
            return config;
        }

        /** Gateway retries on this version, at most a tenth of its first attempts. */
        public RetryBudget retryBudget() {
            return retryBudget;
        }

        /** Whether a change removed or replaced it: no new attempt, not even a retry, goes to it. */
        public synchronized boolean retired() {
            return retired;
        }

        /** Attempts open on it now. */
        public synchronized int inFlight() {
            return retired ? open : open - 1;
        }

        private synchronized boolean tryOpen() {
            if (retired) {
                return false;
            }
            open++;
            return true;
        }

        /** An attempt opened by {@link LiveDeployments#open} ended: its reservation was settled or released. */
        public void close() {
            boolean last;
            synchronized (this) {
                if (open <= 0) {
                    throw new IllegalStateException("close: no attempt open on deployment " + config.id());
                }
                last = --open == 0;
            }
            if (last) {
                closed.forEach(l -> l.accept(config));
            }
        }

        private void retire() {
            synchronized (this) {
                retired = true;
            }
            close();
        }
    }
}
