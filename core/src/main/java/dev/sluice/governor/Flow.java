package dev.sluice.governor;

/**
 * One tenant's waiters in one class of a {@link Lane}, in arrival order, which is also the order
 * of their start tags. Keeps a running sum of their costs, so that how much of the flow fair
 * order serves before a given start tag is found by binary search, not by walking the flow: a
 * request judged against a deep queue costs the same as one judged against an empty one.
 *
 * <p>A ring buffer: the head leaves in O(1), a waiter leaving from the middle (its deadline
 * passed) shifts the ones behind it. Guarded by the lane's monitor.
 */
final class Flow {

    /** What happens to a waiter that leaves: told whether it was the flow's last at that moment. */
    interface Departure {
        void left(Waiter w, boolean wasLast);
    }

    private Waiter[] items = new Waiter[8];
    /** Per slot: the sum of costs from the flow's origin up to and including that waiter. */
    private long[] sums = new long[8];
    private int head;
    private int size;
    /** The part of every sum that belongs to waiters already gone from the head. */
    private long base;
    /**
     * Whether give-up times never decrease from head to tail: the usual case, since they are
     * arrival time plus the class's budget; a request's own shorter deadline can break it.
     */
    private boolean giveUpOrdered = true;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    Waiter peekFirst() {
        return size == 0 ? null : items[head];
    }

    Waiter peekLast() {
        return size == 0 ? null : items[slot(size - 1)];
    }

    void addLast(Waiter w) {
        if (size == items.length) {
            grow();
        }
        if (size == 0) {
            giveUpOrdered = true;
        } else if (w.giveUpAt < items[slot(size - 1)].giveUpAt) {
            giveUpOrdered = false;
        }
        long before = size == 0 ? base : sums[slot(size - 1)];
        int s = slot(size);
        items[s] = w;
        sums[s] = before + w.costNanos;
        size++;
    }

    /**
     * The summed cost of the waiters whose start tag is at most {@code startTag}: those fair order
     * serves before a newcomer that starts there.
     */
    long costUpTo(double startTag) {
        int lo = 0;
        int hi = size; // the first index whose tag is above startTag lies in [lo, hi]
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (items[slot(mid)].startTag <= startTag) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == 0 ? 0 : sums[slot(lo - 1)] - base;
    }

    /** The summed cost of every waiter in the flow. */
    long cost() {
        return size == 0 ? 0 : sums[slot(size - 1)] - base;
    }

    /**
     * Removes {@code w}.
     *
     * @return whether it was the flow's last waiter
     */
    boolean remove(Waiter w) {
        int i = indexOf(w);
        if (i < 0) {
            throw new IllegalStateException("the waiter is not in this flow");
        }
        boolean last = i == size - 1;
        if (i == 0) {
            base = sums[head];
            items[head] = null;
            head = slot(1);
            size--;
            return last;
        }
        for (int j = i; j < size - 1; j++) {
            int to = slot(j);
            int from = slot(j + 1);
            items[to] = items[from];
            sums[to] = sums[from] - w.costNanos;
        }
        items[slot(size - 1)] = null;
        size--;
        return last;
    }

    /**
     * Moves the give-up time of every waiter that {@code earlier} answers for to what it answers
     * (never later); give-up times are then no longer assumed to be in arrival order.
     *
     * @return the earliest give-up time of all waiters; {@code Long.MAX_VALUE} when none wait
     */
    long moveGiveUps(java.util.function.ToLongFunction<Waiter> earlier) {
        long next = Long.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            Waiter w = items[slot(i)];
            w.giveUpAt = Math.min(w.giveUpAt, earlier.applyAsLong(w));
            next = Math.min(next, w.giveUpAt);
        }
        giveUpOrdered = false;
        return next;
    }

    /**
     * Removes, in arrival order, every waiter whose give-up time has come, telling
     * {@code departure} of each as it goes. When give-up times are in arrival order, those are
     * the first few and nothing behind them is looked at.
     *
     * @return the earliest give-up time of those that stay; {@code Long.MAX_VALUE} when none do
     */
    long removeExpired(long now, Departure departure) {
        if (giveUpOrdered) {
            while (size > 0 && items[head].giveUpAt <= now) {
                Waiter w = items[head];
                boolean last = size == 1;
                base = sums[head];
                items[head] = null;
                head = slot(1);
                size--;
                departure.left(w, last);
            }
            return size == 0 ? Long.MAX_VALUE : items[head].giveUpAt;
        }
        long next = Long.MAX_VALUE;
        int kept = 0;
        long removedBehind = 0; // cost removed after the first kept waiter: later sums shrink by it
        int n = size;
        for (int i = 0; i < n; i++) {
            int s = slot(i);
            Waiter w = items[s];
            long sum = sums[s];
            if (w.giveUpAt > now) {
                next = Math.min(next, w.giveUpAt);
                int to = slot(kept);
                items[to] = w;
                sums[to] = sum - removedBehind;
                kept++;
                continue;
            }
            if (kept == 0) {
                base += w.costNanos;
            } else {
                removedBehind += w.costNanos;
            }
            departure.left(w, i == n - 1);
        }
        for (int i = kept; i < n; i++) {
            items[slot(i)] = null;
        }
        size = kept;
        return next;
    }

    /**
     * Moves the waiters behind those that left unserved earlier in fair order by what those had
     * moved it on: {@code tags[i]} and {@code spans[i]}, for {@code n} departures in ascending tag
     * order. Order within the flow is kept, since each waiter's tag exceeds an earlier one's by at
     * least the earlier one's span.
     */
    void retreat(double[] tags, double[] spans, int n) {
        int j = 0;
        double shift = 0;
        for (int i = 0; i < size; i++) {
            Waiter w = items[slot(i)];
            while (j < n && tags[j] < w.startTag) {
                shift += spans[j++];
            }
            w.startTag -= shift;
        }
    }

    private int indexOf(Waiter w) {
        for (int i = 0; i < size; i++) {
            if (items[slot(i)] == w) {
                return i;
            }
        }
        return -1;
    }

    private int slot(int index) {
        int s = head + index;
        return s < items.length ? s : s - items.length;
    }

    private void grow() {
        Waiter[] w = new Waiter[items.length * 2];
        long[] t = new long[items.length * 2];
        for (int i = 0; i < size; i++) {
            w[i] = items[slot(i)];
            t[i] = sums[slot(i)];
        }
        items = w;
        sums = t;
        head = 0;
    }
}
