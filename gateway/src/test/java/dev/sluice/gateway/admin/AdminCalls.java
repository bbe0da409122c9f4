package dev.sluice.gateway.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.control.ControlJournal;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

/** What the admin API's tests share: a gateway started and stopped, a call to its admin port, a chat on its client port. */
final class AdminCalls {

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private AdminCalls() {}

    /** One event loop, no adaptive control, the admin changes kept in {@code journal}. */
    static Gateway start(Vertx vertx, SluiceConfig config, ControlJournal journal) throws Exception {
        return Gateway.builder(config).vertx(vertx).instances(1).adaptive(false).journal(journal).start()
                .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static Gateway start(Vertx vertx, SluiceConfig config) throws Exception {
        return start(vertx, config, ControlJournal.inMemory());
    }

    static void stop(Gateway g) throws Exception {
        g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    static void close(Vertx vertx) throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    /** {@code method path} on the admin port with {@code token} (none when null) and a JSON body (none when null). */
    static HttpResponse<String> admin(Gateway g, String method, String path, String token, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(g.admin().orElseThrow().baseUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("content-type", "application/json");
        if (token != null) {
            b.header("authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A chat completion for profile {@code p} on the client port with {@code key}. */
    static HttpResponse<String> chat(Gateway g, String key) throws IOException, InterruptedException {
        return post(g, "/v1/chat/completions", key, "{\"model\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    }

    /** A POST of {@code body} to the client port with {@code key}. */
    static HttpResponse<String> post(Gateway g, String path, String key, String body) throws IOException, InterruptedException {
        HttpRequest r = HttpRequest.newBuilder(URI.create(g.baseUrl() + path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("authorization", "Bearer " + key).header("content-type", "application/json").build();
        return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }
}
