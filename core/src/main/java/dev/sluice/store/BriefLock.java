package dev.sluice.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A lock for critical sections of a few dozen instructions that never block: a bucket's check
 * and take, a lease list's link and unlink. Taking it is one atomic instruction and releasing it
 * a plain store, where a monitor or a {@code ReentrantLock} costs two atomic instructions per
 * section. An admission and its settlement pass fourteen such sections; this lock saved about
 * 7% of their cost when measured (docs/BENCHMARKS.md). A waiter spins briefly, then yields, so a
 * holder that lost its core gets it back.
 *
 * <p>Not reentrant. Always release in a {@code finally}.
 */
abstract class BriefLock {

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(BriefLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Spins before yielding: sections are far shorter than this. */
    private static final int SPINS = 64;

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    final void lock() {
        if (!STATE.compareAndSet(this, 0, 1)) {
            contended();
        }
    }

    final void unlock() {
        STATE.setRelease(this, 0);
    }

    private void contended() {
        int spins = 0;
        do {
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
                spins = 0;
            }
        } while ((int) STATE.getOpaque(this) != 0 || !STATE.compareAndSet(this, 0, 1));
    }
}
