package dev.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The governor can be read, tested and simulated without a network: core's main code does no I/O,
 * starts no thread, never sleeps and reads the machine's clock in one place only.
 */
class CoreIsPureTest {

    private static final Path MAIN = Path.of("src/main/java");

    private static final List<Pattern> FORBIDDEN = List.of(
            Pattern.compile("import java\\.net\\."),
            Pattern.compile("import java\\.nio\\.(file|channels)\\."),
            Pattern.compile("import java\\.sql\\."),
            Pattern.compile("import java\\.io\\.(File|FileInputStream|FileOutputStream|RandomAccessFile)\\b"),
            Pattern.compile("import (io\\.vertx|io\\.lettuce|io\\.netty|redis\\.)"),
            Pattern.compile("new Thread\\b|Executors\\.|ExecutorService|\\.sleep\\("),
            Pattern.compile("ThreadLocalRandom|Math\\.random\\("));

    private static final Pattern CLOCK_READ = Pattern.compile("System\\.(nanoTime|currentTimeMillis)\\(|Instant\\.now\\(");

    @Test
    void coreDoesNoIoStartsNoThreadAndNeverSleeps() throws IOException {
        List<String> offences = new ArrayList<>();
        for (Path file : sources()) {
            String text = Files.readString(file);
            for (Pattern p : FORBIDDEN) {
                if (p.matcher(text).find()) {
                    offences.add(MAIN.relativize(file) + ": " + p.pattern());
                }
            }
        }
        assertThat(offences).isEmpty();
    }

    @Test
    void onlyTheSystemClockReadsTheMachinesTime() throws IOException {
        List<String> readers = new ArrayList<>();
        for (Path file : sources()) {
            if (CLOCK_READ.matcher(Files.readString(file)).find()) {
                readers.add(MAIN.relativize(file).toString().replace('\\', '/'));
            }
        }
        assertThat(readers).containsExactly("dev/sluice/time/SystemNanoClock.java");
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }
}
