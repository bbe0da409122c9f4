package dev.sluice.store.redis;

import dev.sluice.store.Headroom;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Reservations and settlements on their way to Redis, one lane per slot. A caller hands in its
 * operation and waits for the answer. While a lane has {@link #MAX_IN_FLIGHT} calls in flight,
 * operations that arrive queue up and go together in the next call (at most {@link #MAX_OPS}),
 * which the library runs one by one, in order, as if each had gone alone. Each operation is
 * still one round trip; under load Redis pays its per-call costs (parsing the call, reading the
 * clock, reading and writing the buckets) once for many operations. Alone, an operation goes at
 * once, in a call of its own.
 */
final class Batcher {

    /** Most operations in one call: bounds the time one call holds Redis. */
    static final int MAX_OPS = 64;

    /**
     * Calls of one lane in flight at once. One makes the largest calls, and Redis's time per
     * operation, shared by every replica, is what limits a fleet; on the benchmark two or four in
     * flight cost Redis up to 25% and 60% more per operation and gave no more pairs per second.
     */
    static final int MAX_IN_FLIGHT = 1;

    static final byte RESERVE = 'r';
    static final byte SETTLE = 's';

    /** One reservation or settlement on one group of a path. */
    static final class Op {
        final byte kind;
        final PathLayout.Group group;
        final byte[] clock;
        final byte[] member;
        final long ttlNanos;
        final int reclaim;
        final byte[] actual;
        /** What a reservation leaves untouched for higher classes or may borrow; {@link Headroom#NONE} for a settlement. */
        final Headroom headroom;
        final CompletableFuture<Object> answer = new CompletableFuture<>();

        private Op(byte kind, PathLayout.Group group, byte[] clock, byte[] member, long ttlNanos, int reclaim,
                byte[] actual, Headroom headroom) {
            this.kind = kind;
            this.group = group;
            this.clock = clock;
            this.member = member;
            this.ttlNanos = ttlNanos;
            this.reclaim = reclaim;
            this.actual = actual;
            this.headroom = headroom;
        }

        /**
         * A reservation that first ends up to {@code reclaim} expired leases of its set (at most
         * 65535); its answer is {@code [1]} or the shortfall.
         */
        static Op reserve(PathLayout.Group g, byte[] clock, byte[] member, long ttlNanos, int reclaim) {
            return reserve(g, clock, member, ttlNanos, reclaim, Headroom.NONE);
        }

        /** As {@link #reserve(PathLayout.Group, byte[], byte[], long, int)}, leaving {@code headroom} untouched. */
        static Op reserve(PathLayout.Group g, byte[] clock, byte[] member, long ttlNanos, int reclaim,
                Headroom headroom) {
            return new Op(RESERVE, g, clock, member, ttlNanos, Math.min(reclaim, 0xFFFF), NOTHING, headroom);
        }

        /** A settlement with {@code actual} packed, or a release when it is empty; its answer is 1 or 0. */
        static Op settle(PathLayout.Group g, byte[] clock, byte[] member, byte[] actual) {
            return new Op(SETTLE, g, clock, member, 0, 0, actual, Headroom.NONE);
        }

        Op again() {
            return new Op(kind, group, clock, member, ttlNanos, reclaim, actual, headroom);
        }
    }

    private static final byte[] NOTHING = {};

    private final RedisLink link;
    private final Supplier<byte[]> calendar;
    private final long timeoutNanos;
    private final ConcurrentHashMap<String, Lane> lanes = new ConcurrentHashMap<>();

    Batcher(RedisLink link, Supplier<byte[]> calendar, Duration timeout) {
        this.link = link;
        this.calendar = calendar;
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * Runs {@code op} and returns its answer, loading the library again once if the server lost
     * it.
     *
     * @throws StoreUnavailableException if Redis does not answer in time
     */
    Object call(Op op) {
        try {
            return await(submit(op));
        } catch (RuntimeException e) {
            if (!RedisLink.isMissingLibrary(e)) {
                throw e;
            }
            link.reload();
            return await(submit(op.again()));
        }
    }

    private Op submit(Op op) {
        Lane lane = lanes.computeIfAbsent(op.group.tag(), t -> new Lane());
        lane.queue.add(op);
        lane.pump();
        return op;
    }

    private Object await(Op op) {
        try {
            return op.answer.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException("redis: no answer within " + Duration.ofNanos(timeoutNanos).toMillis()
                    + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("redis: interrupted while waiting for an answer", e);
        } catch (ExecutionException e) {
            throw RedisLink.failure(e.getCause());
        }
    }

    /** The operations of one slot: a queue and the calls in flight. */
    private final class Lane {
        final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();
        final AtomicInteger inFlight = new AtomicInteger();

        /**
         * Sends what is queued while fewer than the most calls are in flight. Called by every
         * submitter after queueing and by every finished call, so an operation never waits for a
         * call that nobody will make.
         */
        void pump() {
            while (!queue.isEmpty()) {
                int f = inFlight.get();
                if (f >= MAX_IN_FLIGHT) {
                    return;
                }
                if (!inFlight.compareAndSet(f, f + 1)) {
                    continue;
                }
                List<Op> ops = new ArrayList<>(Math.min(MAX_OPS, 8));
                Op op;
                while (ops.size() < MAX_OPS && (op = queue.poll()) != null) {
                    ops.add(op);
                }
                if (ops.isEmpty()) {
                    inFlight.decrementAndGet();
                    continue;
                }
                send(ops);
            }
        }

        private void send(List<Op> ops) {
            try {
                link.send(args(ops)).whenComplete((answers, failure) -> {
                    inFlight.decrementAndGet();
                    finish(ops, answers, failure);
                    pump();
                });
            } catch (RuntimeException e) {
                inFlight.decrementAndGet();
                finish(ops, null, e);
            }
        }

        private void finish(List<Op> ops, List<Object> answers, Throwable failure) {
            for (int i = 0; i < ops.size(); i++) {
                if (failure != null) {
                    ops.get(i).answer.completeExceptionally(failure);
                } else {
                    ops.get(i).answer.complete(answers.get(i));
                }
            }
        }
    }

    /**
     * Sends {@code ops} together in one call, whatever is in flight, and returns their answers;
     * for tests of what a call of many operations answers.
     */
    List<Object> callTogether(List<Op> ops) {
        return link.await(link.send(args(ops)));
    }

    /**
     * One call of the library's batch function for {@code ops}, in order. Operations on the same
     * group of the same path (the same {@link PathLayout.Group}) share one copy of its keys and
     * plans.
     */
    private CommandArgs<String, String> args(List<Op> ops) {
        IdentityHashMap<PathLayout.Group, int[]> groups = new IdentityHashMap<>();
        List<PathLayout.Group> order = new ArrayList<>();
        int numKeys = 0;
        for (Op op : ops) {
            if (!groups.containsKey(op.group)) {
                // Index of the group's lease set in KEYS and of its plans in ARGV, both from 1.
                groups.put(op.group, new int[] {numKeys + 1, 3 + order.size()});
                order.add(op.group);
                numKeys += op.group.keys().length;
            }
        }
        if (numKeys > 0xFFFF) {
            throw new IllegalStateException("keys in one call: " + numKeys + " (expected: at most 65535)");
        }
        CommandArgs<String, String> args = link.start(Library.Fn.BATCH, numKeys);
        for (PathLayout.Group g : order) {
            for (byte[] k : g.keys()) {
                args.add(k);
            }
        }
        args.add(calendar.get());
        args.add(order.size());
        for (PathLayout.Group g : order) {
            args.add(g.packedPlans());
        }
        for (Op op : ops) {
            int[] at = groups.get(op.group);
            args.add(ByteBuffer.allocate(34).order(ByteOrder.LITTLE_ENDIAN).put(op.kind).putShort((short) at[0])
                    .put((byte) (op.group.keys().length - 1)).putShort((short) at[1]).putDouble(op.ttlNanos)
                    .putShort((short) op.reclaim).putDouble(op.headroom.fraction())
                    .putShort((short) op.headroom.buckets()).putDouble(op.headroom.credit()).array());
            args.add(op.clock);
            args.add(op.member);
            args.add(op.actual);
        }
        return args;
    }
}
