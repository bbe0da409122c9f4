package dev.sluice.gateway.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/** Reads samples out of a Prometheus text exposition, for tests. */
public final class Scrape {

    private final List<String> lines;

    public Scrape(String text) {
        this.lines = text.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
    }

    /**
     * The value of the one sample named {@code name} whose labels include every
     * {@code label="value"} of {@code labels} (given as {@code "label", "value", ...}); empty when none.
     *
     * @throws IllegalStateException when several samples match
     */
    public OptionalDouble value(String name, String... labels) {
        List<String> hits = matching(name, labels);
        if (hits.size() > 1) {
            throw new IllegalStateException(hits.size() + " samples match " + name + " " + List.of(labels) + ": " + hits);
        }
        return hits.isEmpty() ? OptionalDouble.empty()
                : OptionalDouble.of(Double.parseDouble(hits.get(0).substring(hits.get(0).lastIndexOf(' ') + 1)));
    }

    /** The sum over every sample named {@code name} whose labels include {@code labels}. */
    public double sum(String name, String... labels) {
        return matching(name, labels).stream().mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** Every sample line named {@code name} with {@code labels}. */
    public List<String> matching(String name, String... labels) {
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            int brace = l.indexOf('{');
            int space = l.lastIndexOf(' ');
            String n = brace >= 0 ? l.substring(0, brace) : l.substring(0, space);
            if (!n.equals(name)) {
                continue;
            }
            String labelText = brace >= 0 ? l.substring(brace, l.lastIndexOf('}') + 1) : "";
            boolean all = true;
            for (int i = 0; i + 1 < labels.length; i += 2) {
                String pair = labels[i] + "=\"" + labels[i + 1] + "\"";
                if (!labelText.contains("{" + pair) && !labelText.contains("," + pair)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                out.add(l);
            }
        }
        return out;
    }
}
