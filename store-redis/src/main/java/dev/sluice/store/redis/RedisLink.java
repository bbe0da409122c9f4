package dev.sluice.store.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One Lettuce connection shared by every thread of the replica (commands from many threads are
 * pipelined on it), the server-side {@link Library}, and the mapping of Redis failures to
 * {@link StoreUnavailableException}. Commands are refused at once while disconnected instead of
 * being buffered: a reservation replayed seconds later would be a surprise.
 *
 * <p>The library is loaded as Redis functions ({@code FCALL}) where the server has them (7.0 and
 * later), else as scripts ({@code EVALSHA}). Calls pass packed binary arguments that the library
 * builds once per path where it can.
 */
final class RedisLink implements AutoCloseable {

    private static final String[] UNAVAILABLE = {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN",
        "CLUSTERDOWN", "OOM", "NOREPLICAS", "MISCONF"};

    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> async;
    private final long timeoutNanos;
    private final Library library = Library.get();
    private volatile boolean functions;

    private RedisLink(ClientResources resources, RedisClient client, StatefulRedisConnection<String, String> connection,
            Duration timeout) {
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.async = connection.async();
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * Connects and loads the library.
     *
     * @param functions whether to use Redis functions where the server has them; false always
     *     uses scripts (for tests of that path)
     */
    static RedisLink open(RedisURI uri, Duration timeout, Duration reconnectDelay, boolean functions) {
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
        try {
            link.functions = functions && link.loadFunctions();
            if (!link.functions) {
                link.loadScripts();
            }
        } catch (RuntimeException e) {
            link.close();
            throw e;
        }
        return link;
    }

    /**
     * Loads the function library; false if the server has no functions (before Redis 7) or this
     * user may not load them (ACL), where scripts still work.
     */
    private boolean loadFunctions() {
        try {
            await(async.functionLoad(library.functionsSource, true));
            return true;
        } catch (IllegalStateException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("unknown command") || msg.contains("NOPERM")) {
                return false;
            }
            throw e;
        }
    }

    private void loadScripts() {
        for (Library.Fn f : Library.Fn.values()) {
            await(async.scriptLoad(library.script(f)));
        }
    }

    /** Loads what the server lost (a restart without persistence, FUNCTION FLUSH, SCRIPT FLUSH). */
    void reload() {
        if (functions) {
            loadFunctions();
        } else {
            loadScripts();
        }
    }

    /** Whether calls go to Redis functions ({@code FCALL}) rather than scripts. */
    boolean usesFunctions() {
        return functions;
    }

    /**
     * Calls a library function that answers an integer. {@code args} are {@code byte[]} (sent as
     * they are), {@code Long} or {@code String}.
     */
    long callLong(Library.Fn f, byte[][] keys, Object... args) {
        try {
            return await(async.dispatch(command(), new IntegerOutput<>(StringCodec.UTF8), args(f, keys, args)));
        } catch (NoScript e) {
            reload();
            return await(async.dispatch(command(), new IntegerOutput<>(StringCodec.UTF8), args(f, keys, args)));
        }
    }

    /** As {@link #callLong}, for functions that answer an array (nested arrays become lists). */
    List<Object> callList(Library.Fn f, byte[][] keys, Object... args) {
        try {
            return await(async.dispatch(command(), new NestedMultiOutput<>(StringCodec.UTF8), args(f, keys, args)));
        } catch (NoScript e) {
            reload();
            return await(async.dispatch(command(), new NestedMultiOutput<>(StringCodec.UTF8), args(f, keys, args)));
        }
    }

    /** Starts the arguments of a call to {@code f} with {@code numKeys} keys; add the keys, then the arguments. */
    CommandArgs<String, String> start(Library.Fn f, int numKeys) {
        CommandArgs<String, String> a = new CommandArgs<>(StringCodec.UTF8);
        a.add(functions ? library.functionName(f) : library.scriptDigest(f));
        a.add(numKeys);
        return a;
    }

    /** Sends a call begun with {@link #start} without waiting for it. */
    RedisFuture<List<Object>> send(CommandArgs<String, String> args) {
        return async.dispatch(command(), new NestedMultiOutput<>(StringCodec.UTF8), args);
    }

    /**
     * Whether {@code e} (from {@link #await} or {@link #failure}) means the server lost the
     * library; {@link #reload} and call again.
     */
    static boolean isMissingLibrary(RuntimeException e) {
        return e instanceof NoScript;
    }

    /** The exception a call's failure cause stands for, as {@link #await} throws it. */
    static RuntimeException failure(Throwable cause) {
        if (cause instanceof TimeoutException) {
            return new StoreUnavailableException("redis: no answer in time", cause);
        }
        return translate(cause);
    }

    private CommandType command() {
        return functions ? CommandType.FCALL : CommandType.EVALSHA;
    }

    private CommandArgs<String, String> args(Library.Fn f, byte[][] keys, Object[] args) {
        CommandArgs<String, String> a = start(f, keys.length);
        for (byte[] k : keys) {
            a.add(k);
        }
        for (Object o : args) {
            switch (o) {
                case byte[] b -> a.add(b);
                case Long l -> a.add(l);
                case String s -> a.add(s);
                default -> throw new IllegalArgumentException("argument: " + o.getClass().getName());
            }
        }
        return a;
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
            if (msg.startsWith("NOSCRIPT") || msg.startsWith("ERR Function not found")) {
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

    /** The server does not know a script digest or function: load the library and try again. */
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
