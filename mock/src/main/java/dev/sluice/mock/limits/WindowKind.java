package dev.sluice.mock.limits;

/** How a provider counts usage against a limit over time. */
public enum WindowKind {
    /** Counters that reset at multiples of the window length (a calendar-aligned window). */
    FIXED,
    /** The sum of what was charged in the last window length, moving with time (a sliding log). */
    SLIDING,
    /** A bucket holding the window's allowance and refilling continuously at the per-minute rate. */
    TOKEN_BUCKET
}
