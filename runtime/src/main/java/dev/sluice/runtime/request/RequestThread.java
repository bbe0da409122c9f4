package dev.sluice.runtime.request;

/**
 * The thread a request belongs to, lent by its transport: the gateway's event loop for that
 * connection, or the simulator's single virtual-time loop. Whatever the lifecycle learns on
 * another thread (a queued admission that completes, a store call that ran on a worker) comes
 * back to the transport through here.
 */
@FunctionalInterface
public interface RequestThread {

    /** Runs {@code work} on the request's thread, later. */
    void execute(Runnable work);

    /** For a transport with one thread that is always current (the simulator, tests): runs at once. */
    static RequestThread inPlace() {
        return Runnable::run;
    }
}
