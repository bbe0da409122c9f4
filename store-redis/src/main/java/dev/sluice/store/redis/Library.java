package dev.sluice.store.redis;

import dev.sluice.limits.Dimension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * The server side: {@code state.lua} and {@code calls.lua} with the dimensions written in, as a Redis 7 function
 * library (loaded once, every call runs only its function) and, for servers without functions,
 * as one script per entry point. Names carry a digest of the source, so replicas running
 * different builds never call each other's code.
 */
final class Library {

    /** The entry points of the library. */
    enum Fn {
        BATCH("batch"),
        EXPIRE("expire"),
        BUCKET("bucket"),
        SHARE("share"),
        FLEET("fleet");

        final String lua;

        Fn(String lua) {
            this.lua = lua;
        }
    }

    private static final Library INSTANCE = new Library();

    final String name;
    final String functionsSource;
    private final Map<Fn, String> scripts = new EnumMap<>(Fn.class);
    private final Map<Fn, byte[]> functionNames = new EnumMap<>(Fn.class);
    private final Map<Fn, byte[]> scriptDigests = new EnumMap<>(Fn.class);

    private Library() {
        String source = (read("state.lua") + "\n" + read("calls.lua")).replace("@KIND@", kinds()).replace("@NDIM@", Integer.toString(Dimension.COUNT))
                .replace("@AMOUNTS@", "<" + "d".repeat(Dimension.COUNT));
        this.name = "sluice_" + sha1(source).substring(0, 12);
        StringBuilder lib = new StringBuilder("#!lua name=").append(name).append('\n').append(source).append('\n');
        for (Fn f : Fn.values()) {
            lib.append("redis.register_function('").append(name).append('_').append(f.lua).append("', ").append(f.lua)
                    .append(")\n");
            functionNames.put(f, (name + "_" + f.lua).getBytes(StandardCharsets.US_ASCII));
            String script = source + "\nreturn " + f.lua + "(KEYS, ARGV)\n";
            scripts.put(f, script);
            scriptDigests.put(f, sha1(script).getBytes(StandardCharsets.US_ASCII));
        }
        this.functionsSource = lib.toString();
    }

    static Library get() {
        return INSTANCE;
    }

    byte[] functionName(Fn f) {
        return functionNames.get(f);
    }

    String script(Fn f) {
        return scripts.get(f);
    }

    /** The digest {@code SCRIPT LOAD} answers for {@link #script}: SHA-1 of the text, in hex. */
    byte[] scriptDigest(Fn f) {
        return scriptDigests.get(f);
    }

    /** A Lua table from dimension ordinal to kind letter: {@code {[0] = 'R', 'R', ...}}. */
    private static String kinds() {
        StringBuilder k = new StringBuilder("{");
        for (Dimension d : Dimension.values()) {
            k.append(d.ordinal() == 0 ? "[0] = '" : ", '").append(switch (d.kind()) {
                case RATE -> 'R';
                case GAUGE -> 'G';
                case DAILY -> 'D';
                case MONTHLY -> 'M';
            }).append('\'');
        }
        return k.append('}').toString();
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java runtime", e);
        }
    }

    private static String read(String name) {
        try (InputStream in = Library.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("script resource missing: " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
