package dev.sluice.ledger.query;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What usage is summed by: each a column of the usage rollup. */
public enum Grouping {
    TENANT("tenant"), KEY("api_key"), PROFILE("profile"), DEPLOYMENT("deployment"), CLASS("traffic_class");

    private final String column;

    Grouping(String column) {
        this.column = column;
    }

    String column() {
        return column;
    }

    /** The name on the command line: {@code tenant}, {@code key}, {@code profile}, {@code deployment}, {@code class}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Grouping> byWireName(String name) {
        return Arrays.stream(values()).filter(g -> g.wireName().equals(name)).findFirst();
    }
}
