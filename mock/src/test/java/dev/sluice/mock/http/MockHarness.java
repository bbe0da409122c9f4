package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** Starts mock servers on 127.0.0.1 and talks to them over real HTTP/1.1. */
abstract class MockHarness {

    static final ObjectMapper JSON = new ObjectMapper();
    static Vertx vertx;
    static HttpClient client;

    final ManualClock clock = new ManualClock();
    private final List<MockProviderServer> started = new ArrayList<>();

    @BeforeAll
    static void startVertx() {
        vertx = Vertx.vertx();
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stopVertx() throws Exception {
        client.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void closeServers() throws Exception {
        for (MockProviderServer s : started) {
            s.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    MockProviderServer start(MockConfig config) {
        try {
            MockProviderServer s = MockProviderServer.start(vertx, config, clock)
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            started.add(s);
            return s;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    static HttpRequest.Builder request(MockProviderServer s, String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(s.baseUrl() + pathAndQuery)).timeout(Duration.ofSeconds(10));
    }

    static HttpResponse<String> post(MockProviderServer s, String pathAndQuery, String body, String... headers) {
        HttpRequest.Builder b = request(s, pathAndQuery).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("content-type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.build());
    }

    static HttpResponse<String> get(MockProviderServer s, String pathAndQuery) {
        return send(request(s, pathAndQuery).GET().build());
    }

    static HttpResponse<String> send(HttpRequest r) {
        try {
            return client.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + r.body(), e);
        }
    }

    static JsonNode json(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + s, e);
        }
    }

    /** The data payloads of an SSE body, in order. */
    static List<String> sseData(String body) {
        List<String> out = new ArrayList<>();
        for (String line : body.split("\r?\n")) {
            if (line.startsWith("data: ")) {
                out.add(line.substring(6));
            }
        }
        return out;
    }

    /** The event names of an SSE body, in order. */
    static List<String> sseEvents(String body) {
        List<String> out = new ArrayList<>();
        for (String line : body.split("\r?\n")) {
            if (line.startsWith("event: ")) {
                out.add(line.substring(7));
            }
        }
        return out;
    }

    static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there, mock!\"}]"
            + ",\"max_tokens\":100}";
    /** 18 characters: ceil(18 / 4) + 4 per message + 3 per request. */
    static final long CHAT_PROMPT_TOKENS = 12;
}
