package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The client-compatibility suite ({@code clients/}, docs/CLIENTS.md): the Node libraries
 * applications use (openai, @anthropic-ai/sdk, @google/genai, the Vercel AI SDK, LangChain.js),
 * each run through its cases against the demo's gateway and mock providers, started here on a free
 * port. Installs the suite's locked packages with {@code npm ci} when {@code clients/node_modules}
 * is missing. Skipped, saying so, only when {@code node} is not installed. Writes the results to
 * {@code target/client-compat.json} and a table to {@code target/client-compat.md}.
 */
class ClientCompatibilityTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyLibraryBehavesAsDocumented() throws Exception {
        Assumptions.assumeTrue(runs("node", "--version"),
                "node is not installed: the client-compatibility suite (clients/) was not run");
        Path suite = Path.of("..", "clients").toAbsolutePath().normalize();
        assertThat(suite.resolve("package-lock.json")).exists();
        if (!Files.isDirectory(suite.resolve("node_modules"))) {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(suite.toFile())
                    .redirectErrorStream(true).redirectOutput(new File("target/npm-ci.log")).start();
            assertThat(npm.waitFor(10, TimeUnit.MINUTES)).as("npm ci finished").isTrue();
            assertThat(npm.exitValue()).as("npm ci (see cli/target/npm-ci.log)").isZero();
        }
        Vertx vertx = Vertx.vertx();
        DemoStack stack = DemoStack.start(vertx, 0, new PrintStream(System.err, true, StandardCharsets.UTF_8));
        Path out = Path.of("target", "client-compat.out");
        Path err = Path.of("target", "client-compat.err");
        int exit;
        try {
            ProcessBuilder node = new ProcessBuilder("node", "run.mjs").directory(suite.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            node.environment().put("SLUICE_BASE_URL", stack.gateway().baseUrl());
            Process p = node.start();
            if (!p.waitFor(8, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("the suite did not finish in 8 minutes; see " + err.toAbsolutePath());
            }
            exit = p.exitValue();
        } finally {
            stack.close();
            DemoCommand.await(vertx.close());
        }
        List<String> lines = Files.readAllLines(out);
        assertThat(lines).as("the suite's JSON (stderr: %s)", Files.readString(err)).isNotEmpty();
        JsonNode doc = JSON.readTree(lines.getLast());
        Files.writeString(Path.of("target", "client-compat.json"), doc.toPrettyString());
        Files.writeString(Path.of("target", "client-compat.md"), table(doc));
        List<String> failed = new ArrayList<>();
        for (JsonNode r : doc.path("results")) {
            if (!r.path("ok").asBoolean()) {
                failed.add(r.path("library").asText() + " / " + r.path("case").asText() + ": " + r.path("problem").asText()
                        + " " + (r.has("error") ? r.path("error") : r.path("detail")));
            }
        }
        assertThat(failed).as("cases that did not behave as docs/CLIENTS.md says").isEmpty();
        assertThat(exit).isZero();
        // Every library ran every case: plain, stream, tools, 429, retry, no-retry.
        assertThat(doc.path("results").size()).isGreaterThanOrEqualTo(10 * 6);
    }

    /** The results as the Markdown table docs/CLIENTS.md shows: a row per library, attempts per case. */
    static String table(JsonNode doc) {
        List<String> cases = List.of("plain", "stream", "tools", "429", "retry", "no-retry");
        StringBuilder sb = new StringBuilder("| library | " + String.join(" | ", cases) + " |\n|---|"
                + "---|".repeat(cases.size()) + "\n");
        List<String> libraries = new ArrayList<>();
        doc.path("results").forEach(r -> {
            if (!libraries.contains(r.path("library").asText())) {
                libraries.add(r.path("library").asText());
            }
        });
        for (String library : libraries) {
            sb.append("| ").append(library).append(" |");
            for (String c : cases) {
                String cell = " |";
                for (JsonNode r : doc.path("results")) {
                    if (r.path("library").asText().equals(library) && r.path("case").asText().equals(c)) {
                        cell = " " + (r.path("ok").asBoolean() ? "ok" : "FAIL") + ", " + r.path("attempts").asInt() + " att., "
                                + r.path("ms").asLong() + " ms |";
                    }
                }
                sb.append(cell);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
