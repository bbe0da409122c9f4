package dev.sluice.runtime.request;

import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * How work that touches the quota store is run: in place when the store answers from memory, on
 * the host's worker threads when it waits on the network (Redis). Decided once, by the runtime's
 * assembly, from {@link dev.sluice.store.QuotaStore#waitsOnNetwork()}; nothing else asks.
 */
public final class StoreCalls {

    private final Executor workers;
    private final boolean offloaded;

    private StoreCalls(Executor workers, boolean offloaded) {
        this.workers = workers;
        this.offloaded = offloaded;
    }

    /** Every call in place. */
    public static StoreCalls inPlace() {
        return new StoreCalls(Runnable::run, false);
    }

    /** Every call on {@code workers}. */
    public static StoreCalls on(Executor workers) {
        return new StoreCalls(workers, true);
    }

    /** Whether calls leave the caller's thread. */
    public boolean offloaded() {
        return offloaded;
    }

    /**
     * Runs {@code work}, then {@code then} with its result or failure: at once when in place,
     * otherwise on {@code thread} once a worker has run it.
     */
    public <T> void call(Supplier<T> work, RequestThread thread, BiConsumer<? super T, ? super Throwable> then) {
        if (!offloaded) {
            T result;
            try {
                result = work.get();
            } catch (RuntimeException e) {
                then.accept(null, e);
                return;
            }
            then.accept(result, null);
            return;
        }
        workers.execute(() -> {
            T result;
            try {
                result = work.get();
            } catch (RuntimeException e) {
                thread.execute(() -> then.accept(null, e));
                return;
            }
            thread.execute(() -> then.accept(result, null));
        });
    }

    /**
     * Runs {@code work} for its effect only. A failure is dropped: what it would have written
     * to the store (a settlement, an adaptive reaction) is made good by a lease's expiry or the
     * next signal.
     */
    public void run(Runnable work) {
        Runnable quiet = () -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                // see above
            }
        };
        if (offloaded) {
            workers.execute(quiet);
        } else {
            quiet.run();
        }
    }
}
