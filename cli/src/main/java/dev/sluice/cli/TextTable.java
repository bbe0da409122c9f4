package dev.sluice.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Columns aligned for a terminal: text to the left, numbers to the right; two spaces between. */
final class TextTable {

    /** A number already written out (a percentage): aligned as a number. */
    record Formatted(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    private final List<String> headers;
    private final List<Object[]> rows = new ArrayList<>();

    TextTable(String... headers) {
        this.headers = List.of(headers);
    }

    TextTable row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("cells: " + cells.length + " (expected: " + headers.size() + ")");
        }
        rows.add(cells.clone());
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintStream out) {
        int n = headers.size();
        int[] width = new int[n];
        boolean[] right = new boolean[n];
        for (int i = 0; i < n; i++) {
            width[i] = headers.get(i).length();
        }
        for (Object[] r : rows) {
            for (int i = 0; i < n; i++) {
                width[i] = Math.max(width[i], text(r[i]).length());
                right[i] |= r[i] instanceof Number || r[i] instanceof Formatted;
            }
        }
        line(out, headers.toArray(), width, right);
        for (Object[] r : rows) {
            line(out, r, width, right);
        }
    }

    private static void line(PrintStream out, Object[] cells, int[] width, boolean[] right) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            String t = text(cells[i]);
            String pad = " ".repeat(width[i] - t.length());
            if (i > 0) {
                b.append("  ");
            }
            b.append(right[i] ? pad + t : t + (i == cells.length - 1 ? "" : pad));
        }
        out.println(b.toString().stripTrailing());
    }

    private static String text(Object o) {
        if (o instanceof Double d) {
            return String.format(java.util.Locale.ROOT, "%.2f", d);
        }
        return String.valueOf(o);
    }
}
