package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The JVM flags bin/sluice passes to {@code sluice serve}, read from their one place,
 * {@code sluice_jvm_flags} in bin/lib/jdk.sh, by running it for this JVM's JDK: a child Sluice in
 * the harness runs as users run it, and a flag adopted there is measured here without a copy.
 */
final class LauncherFlags {

    static final String SCRIPT = "bin/lib/jdk.sh";

    private LauncherFlags() {}

    /** The flags for {@code sluice serve} on this JVM's JDK. */
    static List<String> forServe() {
        Path script = script().orElseThrow(() -> new IllegalStateException(SCRIPT + " not found above "
                + Path.of("").toAbsolutePath() + " or the harness jar: run the harness from a Sluice checkout"));
        try {
            Process p = new ProcessBuilder("bash", "-c", ". \"$1\"; JAVA_HOME=\"$2\"; sluice_jvm_flags serve", "flags",
                    script.toString(), System.getProperty("java.home")).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() != 0) {
                throw new IllegalStateException(SCRIPT + ": sluice_jvm_flags failed: " + out);
            }
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
        } catch (IOException e) {
            throw new IllegalStateException(SCRIPT + ": could not run bash: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(SCRIPT + ": interrupted", e);
        }
    }

    /** bin/lib/jdk.sh in the working directory or above it, or above the jar this class came from. */
    static Optional<Path> script() {
        Optional<Path> fromCwd = above(Path.of("").toAbsolutePath());
        if (fromCwd.isPresent()) {
            return fromCwd;
        }
        try {
            Path jar = Path.of(LauncherFlags.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return above(jar.toAbsolutePath());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> above(Path start) {
        for (Path d = start; d != null; d = d.getParent()) {
            Path s = d.resolve(SCRIPT);
            if (Files.isRegularFile(s)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
