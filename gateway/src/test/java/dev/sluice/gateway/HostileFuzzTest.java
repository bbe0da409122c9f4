package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A seeded fuzz pass over request heads and bodies on raw sockets: valid requests of each family,
 * each bent by a few random mutations (bytes flipped, headers duplicated or dropped, lengths that
 * lie, huge numbers, stray transfer codings, bytes that must be escaped). Whatever arrives, each
 * connection gets at most one answer, never a 500 of Sluice's own making, never an echo of the
 * key, and within the (short) client timeouts; afterwards every request was answered once and no
 * reservation is open (the fixture checks). The short form runs in CI; {@code -Dsluice.fuzz.cases=N}
 * runs more, {@code -Dsluice.fuzz.seed=S} another sequence.
 */
class HostileFuzzTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture(true,
            ", header_timeout: 300ms, body_timeout: 300ms, idle_timeout: 300ms");

    static final int CASES = Integer.getInteger("sluice.fuzz.cases", 150);
    static final long SEED = Long.getLong("sluice.fuzz.seed", 17L);

    record Base(String line, List<String> headers, String body) {}

    static final List<Base> BASES = List.of(
            new Base("POST /v1/chat/completions HTTP/1.1", List.of("Authorization: Bearer " + GatewayFixture.KEY),
                    "{\"model\":\"chat\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}]}"),
            new Base("POST /v1/messages HTTP/1.1", List.of("x-api-key: " + GatewayFixture.KEY, "anthropic-version: 2023-06-01"),
                    "{\"model\":\"claude\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
            new Base("POST /v1beta/models/gemini:generateContent HTTP/1.1", List.of("x-goog-api-key: " + GatewayFixture.KEY),
                    "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}],"
                            + "\"generationConfig\":{\"maxOutputTokens\":20}}"),
            new Base("POST /v1/chat/completions HTTP/1.1", List.of("Authorization: Bearer " + GatewayFixture.KEY),
                    "{\"model\":\"chat\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"stream\"}]}"),
            new Base("GET /v1/models HTTP/1.1", List.of("Authorization: Bearer " + GatewayFixture.KEY), ""));

    @Test
    void everyMutatedRequestGetsAtMostOneAnswerNoSluice500AndNoEchoedKey() throws Exception {
        Random random = new Random(SEED);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            Base base = BASES.get(random.nextInt(BASES.size()));
            byte[] request = mutate(base, random);
            RawClient.Answer a = RawClient.exchange(f.gateway.port(), request, 5_000);
            String what = "case " + i + " (seed " + SEED + "): " + new String(request, StandardCharsets.ISO_8859_1);
            assertThat(a.closed() || !a.text().isEmpty()).as("answered or closed in time: " + what).isTrue();
            assertThat(a.responses()).as("at most one answer: " + what).isLessThanOrEqualTo(1);
            assertThat(a.text()).as("no echoed key: " + what).doesNotContain(GatewayFixture.KEY);
            if (a.responses() == 1) {
                assertThat(a.status()).as("no 500 of Sluice's own: " + what).isNotEqualTo(500);
                assertThat(a.text()).as(what).doesNotContain("internal_error");
                statuses.add(a.status());
            }
        }
        assertThat(statuses).as("the pass reached both answers and refusals").contains(200).anyMatch(s -> s >= 400);
    }

    /** {@code base} with one to three mutations, as the bytes that go on the wire. */
    static byte[] mutate(Base base, Random random) {
        String line = base.line();
        List<String> headers = new ArrayList<>(base.headers());
        headers.add(0, "Host: 127.0.0.1");
        headers.add("Connection: close");
        String body = base.body();
        if (!body.isEmpty()) {
            headers.add("Content-Type: application/json");
        }
        boolean lengthSet = false;
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            switch (random.nextInt(12)) {
                case 0 -> line = flip(line, random);
                case 1 -> body = flip(body, random);
                case 2 -> headers.add(headers.get(random.nextInt(headers.size()))); // a duplicate
                case 3 -> headers.remove(random.nextInt(headers.size()));
                case 4 -> {
                    headers.add("Content-Length: " + (random.nextBoolean() ? body.length() + 1 + random.nextInt(50)
                            : random.nextInt(Math.max(1, body.length()))));
                    lengthSet = true;
                }
                case 5 -> body = body.replaceFirst("\\d+", random.nextBoolean() ? "99999999999999999999999" : "-1");
                case 6 -> headers.add("Transfer-Encoding: " + List.of("chunked", "xchunked", "gzip, chunked", "identity",
                        "chunked, chunked").get(random.nextInt(5)));
                case 7 -> line = line.replaceFirst(" /", " /" + List.of("%zz", "%", "%C3%28", "\u00e9", "%00", "..%2f",
                        "%F0%9F%98%80").get(random.nextInt(7)));
                case 8 -> headers.add(List.of("x-sluice-class: \u0000", "x-sluice-deadline-ms: 99999999999999999999",
                        "Bad Header: v", "x-a:" + "b".repeat(9000), "traceparent: 00-zz-zz-01", "x-stainless-timeout: -5",
                        "Expect: 100-continue").get(random.nextInt(7)));
                case 9 -> body = body.isEmpty() ? body : body.substring(0, random.nextInt(body.length()));
                case 10 -> body = body.replace("\"hi", "\"\\ud800" + "x".repeat(random.nextInt(3)));
                default -> headers.add(flip(headers.get(random.nextInt(headers.size())), random));
            }
        }
        if (!lengthSet && !body.isEmpty() && headers.stream().noneMatch(h -> h.startsWith("Transfer-Encoding"))) {
            headers.add("Content-Length: " + body.getBytes(StandardCharsets.ISO_8859_1).length);
        }
        StringBuilder out = new StringBuilder(line).append("\r\n");
        for (String h : headers) {
            out.append(h).append("\r\n");
        }
        out.append("\r\n");
        if (headers.stream().anyMatch(h -> h.startsWith("Transfer-Encoding")) && !body.isEmpty()) {
            out.append(Integer.toHexString(body.length())).append("\r\n").append(body).append("\r\n0\r\n\r\n");
        } else {
            out.append(body);
        }
        return out.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** {@code s} with one character replaced by a random byte. */
    static String flip(String s, Random random) {
        if (s.isEmpty()) {
            return s;
        }
        char[] c = s.toCharArray();
        c[random.nextInt(c.length)] = (char) random.nextInt(256);
        return new String(c);
    }
}
