package dev.sluice.mock;

/** The one place in the mock that reads the machine's clocks. */
enum SystemMockClock implements MockClock {
    INSTANCE;

    @Override
    public long nanos() {
        return System.nanoTime();
    }

    @Override
    public long epochMillis() {
        return System.currentTimeMillis();
    }
}
