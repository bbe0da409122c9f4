package dev.sluice.mock.limits;

/** Whether rate-limit headers are sent, and how fresh they are. */
public enum HeaderReport {
    /** Every answer carries the limits' state at that moment. */
    PRESENT,
    /** No rate-limit headers at all. */
    ABSENT,
    /** The state reported was taken up to {@link ProviderBehaviour#headerStaleness()} earlier. */
    STALE
}
