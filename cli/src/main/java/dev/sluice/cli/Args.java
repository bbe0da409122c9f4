package dev.sluice.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** {@code --name value} options, each allowed at most once. */
final class Args {

    static final class BadArguments extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadArguments(String message) {
            super(message, null, false, false);
        }
    }

    private final Map<String, String> values;

    private Args(Map<String, String> values) {
        this.values = values;
    }

    static Args parse(String[] args, String... allowed) {
        Set<String> names = Set.of(allowed);
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String value;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new BadArguments(names.contains(a) ? a + " needs a value" : "unexpected argument '" + a + "'");
            }
            if (!names.contains(name)) {
                throw new BadArguments("unknown option '" + name + "' (expected: " + String.join(", ", allowed) + ")");
            }
            if (m.put(name, value) != null) {
                throw new BadArguments(name + " given twice");
            }
        }
        return new Args(m);
    }

    Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }

    Optional<Integer> integer(String name, int min, int max) {
        return get(name).map(v -> {
            try {
                int n = Integer.parseInt(v);
                if (n < min || n > max) {
                    throw new BadArguments(name + ": " + v + " (expected: " + min + ".." + max + ")");
                }
                return n;
            } catch (NumberFormatException e) {
                throw new BadArguments(name + ": '" + v + "' (expected: a whole number)");
            }
        });
    }
}
