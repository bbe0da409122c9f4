package dev.sluice.adapt;

import dev.sluice.config.ConfigException;
import java.util.Objects;

/**
 * When one signal moves a deployment into each defensive mode and when it lets it out again. The
 * exit threshold lies on the calm side of the enter threshold, so a signal hovering at a threshold
 * cannot make the mode flap.
 *
 * @param direction whether high values ({@link Direction#ABOVE}) or low values ({@link Direction#BELOW}) are bad
 * @param enter thresholds for caution, brownout and load shedding; infinite to never enter
 * @param exit the value the signal must be past (on the calm side) before that mode may be left
 */
public record ModeTrigger(Direction direction, Levels enter, Levels exit) {

    /** Which side of a threshold is bad. */
    public enum Direction {
        /** The signal is bad at or above the threshold (429 ratio, queue pressure, latency). */
        ABOVE,
        /** The signal is bad below the threshold (the multiplier). */
        BELOW
    }

    /** One threshold per defensive mode. */
    public record Levels(double caution, double brownout, double shed) {

        public Levels {
            ConfigException.require(!Double.isNaN(caution), "caution", "a number", caution);
            ConfigException.require(!Double.isNaN(brownout), "brownout", "a number", brownout);
            ConfigException.require(!Double.isNaN(shed), "shed", "a number", shed);
        }

        /** The threshold for {@code mode} (caution, brownout or load shedding). */
        public double of(Mode mode) {
            return switch (mode) {
                case CAUTION -> caution;
                case BROWNOUT -> brownout;
                case LOAD_SHEDDING -> shed;
                case NORMAL -> throw new IllegalArgumentException("mode: normal (expected: a defensive mode)");
            };
        }
    }

    public ModeTrigger {
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(enter, "enter");
        Objects.requireNonNull(exit, "exit");
        boolean above = direction == Direction.ABOVE;
        ConfigException.require(above ? enter.caution() <= enter.brownout() && enter.brownout() <= enter.shed()
                : enter.caution() >= enter.brownout() && enter.brownout() >= enter.shed(), "enter",
                above ? "caution <= brownout <= shed" : "caution >= brownout >= shed", enter);
        for (Mode m : new Mode[] {Mode.CAUTION, Mode.BROWNOUT, Mode.LOAD_SHEDDING}) {
            double in = enter.of(m);
            double out = exit.of(m);
            ConfigException.require(above ? out < in : out > in, "exit." + key(m),
                    (above ? "< " : "> ") + in + " (the calm side of enter." + key(m) + ")", out);
        }
    }

    /** A trigger for a signal that is bad when high. */
    public static ModeTrigger above(Levels enter, Levels exit) {
        return new ModeTrigger(Direction.ABOVE, enter, exit);
    }

    /** A trigger for a signal that is bad when low. */
    public static ModeTrigger below(Levels enter, Levels exit) {
        return new ModeTrigger(Direction.BELOW, enter, exit);
    }

    /** Whether {@code value} calls for {@code mode}. */
    public boolean enters(Mode mode, double value) {
        double t = enter.of(mode);
        return direction == Direction.ABOVE ? value >= t : value < t;
    }

    /** Whether {@code value} is calm enough to leave {@code mode}. */
    public boolean exits(Mode mode, double value) {
        double t = exit.of(mode);
        return direction == Direction.ABOVE ? value < t : value > t;
    }

    static String key(Mode m) {
        return m == Mode.LOAD_SHEDDING ? "shed" : m.wireName();
    }
}
