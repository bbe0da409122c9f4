package dev.sluice.store.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.control.AuditRecord;
import dev.sluice.runtime.control.ControlJournal;
import dev.sluice.runtime.control.ControlJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Carries admin changes between replicas through Redis, so that replicas with separate ledgers
 * (a SQLite file each) still put each other's changes in force. It is this replica's
 * {@link ControlJournal}: every change is written to the local journal first (the one replayed at
 * the next start), then appended to the namespace's change list ({@code ns:{ns}:changes}, a Redis
 * list whose index is the change's version). A thread of its own reads the list from where it
 * last stopped every {@code every} and writes each change it has not seen into the local journal,
 * in the list's order, exactly once: every change carries a relay id (in its replay state, as
 * {@code relay_id}), and one already in the local journal is skipped. The control plane then puts
 * them in force ({@link #whenImported}, and its own {@code sync}, since the journal is shared).
 *
 * <p>A replica starting later reads the whole list when it starts, before the journal is replayed,
 * and so starts with every change the fleet made. A change that cannot reach Redis (an outage) is
 * kept in order and sent again on the next round: the change is in force here at once and on the
 * others once Redis answers. The request path never waits for any of it.
 *
 * <p>Two replicas changing the same object within one round may each keep the other's version
 * last in its own journal (each writes its own change first); change it again to settle it.
 */
public final class RedisChangeRelay implements ControlJournal, AutoCloseable {

    /** How many changes one read takes from the list. */
    private static final int PAGE = 500;

    private final RedisQuotaStore store;
    private final ControlJournal local;
    /** Relay ids of the changes in the local journal. */
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    /** Changes written here that Redis has not acknowledged yet, oldest first. */
    private final ArrayDeque<String> outbox = new ArrayDeque<>();
    private final ScheduledExecutorService timer;
    private volatile Runnable whenImported = () -> { };
    /** How much of the list this replica has read; only the relay's own thread moves it. */
    private long read;

    private RedisChangeRelay(RedisQuotaStore store, ControlJournal local, boolean scheduled) {
        this.store = Objects.requireNonNull(store, "store");
        this.local = Objects.requireNonNull(local, "local");
        this.timer = scheduled ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-change-relay");
            t.setDaemon(true);
            return t;
        }) : null;
        learnLocal();
    }

    /**
     * Wraps {@code local}, reads every change the fleet made that it does not hold yet (so that the
     * replay at start sees them), then reads new ones every {@code every} until closed. When Redis
     * does not answer that first read, the replica starts with its own journal and catches up on
     * the first round Redis answers.
     */
    public static RedisChangeRelay start(RedisQuotaStore store, ControlJournal local, Duration every) {
        if (!every.isPositive()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        RedisChangeRelay relay = new RedisChangeRelay(store, local, true);
        try {
            relay.pull();
        } catch (StoreUnavailableException e) {
            // Caught up by the rounds, and put in force then by whenImported.
        }
        relay.timer.scheduleWithFixedDelay(relay::round, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return relay;
    }

    /** Runs {@code action} (the control plane's sync) on the relay's thread after it imported changes. */
    public void whenImported(Runnable action) {
        this.whenImported = Objects.requireNonNull(action, "action");
    }

    @Override
    public AuditRecord append(AuditRecord record, String state) {
        String id = store.config().replicaId() + ":" + UUID.randomUUID();
        ObjectNode stamped = parse(state).deepCopy();
        stamped.put("relay_id", id);
        AuditRecord stored = local.append(record, stamped.toString());
        known.add(id);
        ObjectNode entry = ControlJson.JSON.createObjectNode().put("id", id).put("at", record.at().toEpochMilli())
                .put("token_id", record.tokenId()).put("action", record.action()).put("target", record.target())
                .put("before", record.before()).put("after", record.after()).put("state", stamped.toString());
        synchronized (outbox) {
            outbox.add(entry.toString());
        }
        try {
            push();
        } catch (StoreUnavailableException e) {
            // In force here; the relay's thread sends it once Redis answers.
        }
        return stored;
    }

    @Override
    public List<AuditRecord> audit(int limit, long beforeSeq) {
        return local.audit(limit, beforeSeq);
    }

    @Override
    public List<Replayed> replay() {
        return local.replay();
    }

    @Override
    public long latestSeq() {
        return local.latestSeq();
    }

    /** Other replicas' changes arrive in the local journal at any time: the control plane must look. */
    @Override
    public boolean shared() {
        return true;
    }

    /** Stops reading; changes not yet sent stay in the local journal only. */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** One round on the relay's thread: send what is waiting, import what is new. */
    private void round() {
        try {
            push();
            if (pull() > 0) {
                whenImported.run();
            }
        } catch (StoreUnavailableException e) {
            // Next round.
        } catch (RuntimeException e) {
            // A local journal that cannot be written now (its database away): the same changes next round.
        }
    }

    /** Sends waiting changes in order; the first that fails stays first. */
    private void push() {
        synchronized (outbox) {
            RedisLink link = store.link();
            for (String entry = outbox.peek(); entry != null; entry = outbox.peek()) {
                link.await(link.commands().rpush(store.keys().changes(), entry));
                outbox.poll();
            }
        }
    }

    /** Imports the list's changes after {@link #read} that the local journal lacks; returns how many. */
    synchronized int pull() {
        RedisLink link = store.link();
        int imported = 0;
        while (true) {
            List<String> page = link.await(link.commands().lrange(store.keys().changes(), read, read + PAGE - 1));
            if (page.isEmpty()) {
                return imported;
            }
            boolean refreshed = false;
            for (String text : page) {
                JsonNode e;
                try {
                    e = parse(text);
                } catch (UncheckedIOException notAChange) {
                    // Not written by a relay: nothing to apply, and it must not stop the ones after it.
                    read++;
                    continue;
                }
                String id = e.path("id").asText();
                if (!known.contains(id) && local.shared() && !refreshed) {
                    // Another replica on the same database may have imported it already.
                    learnLocal();
                    refreshed = true;
                }
                if (!id.isEmpty() && !known.contains(id)) {
                    local.append(new AuditRecord(0, Instant.ofEpochMilli(e.path("at").asLong()),
                            e.path("token_id").asText(), e.path("action").asText(), e.path("target").asText(),
                            e.path("before").asText(), e.path("after").asText()), e.path("state").asText());
                    known.add(id);
                    imported++;
                }
                read++;
            }
        }
    }

    private void learnLocal() {
        for (Replayed r : local.replay()) {
            String id = parse(r.state()).path("relay_id").asText();
            if (!id.isEmpty()) {
                known.add(id);
            }
        }
    }

    private static ObjectNode parse(String json) {
        try {
            JsonNode n = ControlJson.JSON.readTree(json);
            return n instanceof ObjectNode o ? o : ControlJson.JSON.createObjectNode();
        } catch (IOException e) {
            throw new UncheckedIOException("change relay: not JSON: " + e.getMessage(), e);
        }
    }
}
