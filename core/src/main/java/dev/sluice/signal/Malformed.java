package dev.sluice.signal;

/** Counts the header and body values one response made the normaliser ignore. */
final class Malformed {

    private int count;

    void add() {
        if (count < Integer.MAX_VALUE) {
            count++;
        }
    }

    int count() {
        return count;
    }
}
