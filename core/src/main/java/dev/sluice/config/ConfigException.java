package dev.sluice.config;

/**
 * A configuration value that cannot be used, with the path of the field, what was expected and
 * what was found. Records validate their own fields and throw this with a path relative to
 * themselves; whoever builds them from a file prefixes the path of the enclosing node, so the
 * final message names the exact place in the user's file.
 */
public final class ConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final String expected;
    private final String found;

    public ConfigException(String path, String expected, Object found) {
        super(format(path, expected, String.valueOf(found)));
        this.path = path;
        this.expected = expected;
        this.found = String.valueOf(found);
    }

    /** The dotted path of the bad field, e.g. {@code tenants.acme.limits.input_tpm.burst}. */
    public String path() {
        return path;
    }

    public String expected() {
        return expected;
    }

    public String found() {
        return found;
    }

    /** The same problem seen from an enclosing node: {@code prefix + "." + path}. */
    public ConfigException under(String prefix) {
        String joined = prefix.isEmpty() ? path : path.isEmpty() ? prefix : prefix + "." + path;
        return new ConfigException(joined, expected, found);
    }

    /** Throws unless {@code ok}. */
    public static void require(boolean ok, String path, String expected, Object found) {
        if (!ok) {
            throw new ConfigException(path, expected, found);
        }
    }

    private static String format(String path, String expected, String found) {
        return path + ": " + found + " (expected: " + expected + ")";
    }
}
