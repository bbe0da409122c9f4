package dev.sluice.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.EnumMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One Lettuce connection shared by every thread of the replica (commands from many threads are
 * pipelined on it), the script digests, and the mapping of Redis failures to
 * {@link StoreUnavailableException}. Commands are refused at once while disconnected instead of
 * being buffered: a reservation replayed seconds later would be a surprise.
 */
final class RedisLink implements AutoCloseable {

    private static final String[] UNAVAILABLE = {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN",
        "CLUSTERDOWN", "OOM", "NOREPLICAS", "MISCONF"};

    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> async;
    private final long timeoutNanos;
    private final EnumMap<Script, String> sources = new EnumMap<>(Script.class);
    private final EnumMap<Script, String> digests = new EnumMap<>(Script.class);

    private RedisLink(ClientResources resources, RedisClient client, StatefulRedisConnection<String, String> connection,
            Duration timeout) {
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.async = connection.async();
        this.timeoutNanos = timeout.toNanos();
    }

    static RedisLink open(RedisURI uri, Duration timeout, Duration reconnectDelay) {
        ClientResources resources = ClientResources.builder().reconnectDelay(Delay.constant(reconnectDelay)).build();
        RedisClient client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        StatefulRedisConnection<String, String> connection;
        try {
            connection = client.connect();
        } catch (RedisException e) {
            client.shutdown();
            resources.shutdown();
            throw new StoreUnavailableException("redis: cannot connect to " + uri.getHost() + ":" + uri.getPort(), e);
        }
        RedisLink link = new RedisLink(resources, client, connection, timeout);
        for (Script s : Script.values()) {
            link.sources.put(s, s.source());
            link.load(s);
        }
        return link;
    }

    private synchronized void load(Script s) {
        digests.put(s, await(async.scriptLoad(sources.get(s))));
    }

    private synchronized String digest(Script s) {
        return digests.get(s);
    }

    /** Runs a script by digest, loading it again once if the server lost it (restart, SCRIPT FLUSH). */
    <T> T eval(Script s, ScriptOutputType type, String[] keys, String[] args) {
        try {
            return await(async.<T>evalsha(digest(s), type, keys, args));
        } catch (NoScript e) {
            load(s);
            return await(async.<T>evalsha(digest(s), type, keys, args));
        }
    }

    RedisAsyncCommands<String, String> commands() {
        return async;
    }

    boolean connected() {
        return connection.isOpen();
    }

    /** Waits for a reply no longer than the command timeout. */
    <T> T await(RedisFuture<T> future) {
        try {
            return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException("redis: no answer within " + Duration.ofNanos(timeoutNanos).toMillis()
                    + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("redis: interrupted while waiting for an answer", e);
        } catch (ExecutionException e) {
            throw translate(e.getCause());
        }
    }

    private static RuntimeException translate(Throwable t) {
        if (t instanceof RedisCommandExecutionException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.startsWith("NOSCRIPT")) {
                return new NoScript();
            }
            for (String code : UNAVAILABLE) {
                if (msg.startsWith(code)) {
                    return new StoreUnavailableException("redis: " + code.toLowerCase(java.util.Locale.ROOT), e);
                }
            }
            return new IllegalStateException("redis: command failed: " + msg, e);
        }
        if (t instanceof RedisException e) {
            return new StoreUnavailableException("redis: " + e.getMessage(), e);
        }
        if (t instanceof java.io.IOException e) {
            return new StoreUnavailableException("redis: " + e.getMessage(), e);
        }
        return new IllegalStateException("redis: unexpected failure", t);
    }

    /** The server does not know a script digest: load it and try again. */
    private static final class NoScript extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoScript() {
            super("NOSCRIPT", null, false, false);
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
