package dev.sluice.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The server-side scripts; each is the common prelude followed by its own body. */
enum Script {
    RESERVE("reserve.lua"),
    SETTLE("settle.lua"),
    EXPIRE("expire.lua"),
    BUCKET("bucket.lua"),
    SHARE("share.lua");

    private final String file;

    Script(String file) {
        this.file = file;
    }

    String source() {
        return read("common.lua") + "\n" + read(file);
    }

    private static String read(String name) {
        try (InputStream in = Script.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("script resource missing: " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
