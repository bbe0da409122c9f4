package dev.sluice.time;

/** The one place in core that reads the machine's clocks. */
enum SystemNanoClock implements NanoClock {
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
