package dev.sluice.cli;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Synthetic multi-tenant traffic for the demo: a few virtual clients, each sending chat requests
 * (some streaming) through the gateway in a closed loop with a short think time. One client offers
 * a tool: the mock calls it, the client sends the result back and gets the answer, a whole tool
 * round trip through a translated route.
 */
final class DemoTraffic {

    /** One virtual client: whose key, which profile, how eager. */
    record Client(String tenant, String key, String profile, String route, long thinkMillis, boolean streams,
            boolean tools) {
        Client(String tenant, String key, String profile, String route, long thinkMillis, boolean streams) {
            this(tenant, key, profile, route, thinkMillis, streams, false);
        }
    }

    /** The tool the tool-using client offers; the mock calls it with arguments made from this schema. */
    static final String TOOLS = "[{\"type\":\"function\",\"function\":{\"name\":\"lookup_ticket\",\"parameters\":"
            + "{\"type\":\"object\",\"properties\":{\"ticket\":{\"type\":\"integer\"}}}}}]";

    static final class Counts {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong local429 = new AtomicLong();
        final AtomicLong provider429 = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
    }

    private final Vertx vertx;
    private final HttpClient http;
    private final int port;
    private final List<Client> clients;
    private final Map<String, Counts> byTenant = new LinkedHashMap<>();
    private final Counts total = new Counts();
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicLong toolRoundTrips = new AtomicLong();
    private final SplittableRandom random = new SplittableRandom(42);
    private volatile boolean running = true;

    DemoTraffic(Vertx vertx, int port, List<Client> clients) {
        this.vertx = vertx;
        this.port = port;
        this.clients = List.copyOf(clients);
        this.http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
                new PoolOptions().setHttp1MaxSize(64));
        for (Client c : clients) {
            byTenant.putIfAbsent(c.tenant(), new Counts());
        }
    }

    static List<Client> defaults() {
        List<Client> c = new ArrayList<>();
        // acme sends faster than its 240 rpm: some of its requests are refused locally, with a retry time.
        for (int i = 0; i < 4; i++) {
            c.add(new Client("acme", "sk-demo-acme", "fast-chat", "/v1/chat/completions", 60, i == 0));
        }
        c.add(new Client("globex", "sk-demo-globex", "claude", "/v1/chat/completions", 400, true));
        c.add(new Client("initech", "sk-demo-initech", "gemini", "/v1/chat/completions", 600, false));
        c.add(new Client("globex", "sk-demo-globex", "claude", "/v1/chat/completions", 800, false, true));
        return c;
    }

    void start() {
        for (Client c : clients) {
            vertx.setTimer(1 + random.nextInt(200), id -> send(c));
        }
    }

    void stop() {
        running = false;
    }

    long inFlight() {
        return inFlight.get();
    }

    private void send(Client c) {
        if (!running) {
            return;
        }
        String messages = "[{\"role\":\"user\",\"content\":\"Summarise ticket #" + random.nextInt(10_000) + " in one line.\"}]";
        send(c, messages);
    }

    private void send(Client c, String messages) {
        String body = "{\"model\":\"" + c.profile() + "\",\"max_tokens\":" + (32 + random.nextInt(96))
                + ",\"stream\":" + c.streams() + (c.tools() ? ",\"tools\":" + TOOLS : "") + ",\"messages\":" + messages + "}";
        RequestOptions o = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                .setURI(c.route()).putHeader("content-type", "application/json")
                .putHeader("authorization", "Bearer " + c.key());
        Counts t = byTenant.get(c.tenant());
        total.sent.incrementAndGet();
        t.sent.incrementAndGet();
        inFlight.incrementAndGet();
        String[] followUp = {null};
        http.request(o).compose(r -> r.send(Buffer.buffer(body)).compose(resp -> resp.body().map(b -> {
            count(resp.statusCode(), b.toString(), t);
            if (c.tools() && resp.statusCode() == 200) {
                followUp[0] = toolResult(messages, b.toString());
            }
            return resp.statusCode();
        }))).onComplete(ar -> {
            inFlight.decrementAndGet();
            if (ar.failed()) {
                total.errors.incrementAndGet();
                t.errors.incrementAndGet();
            }
            if (followUp[0] != null && running) {
                toolRoundTrips.incrementAndGet();
                send(c, followUp[0]);
            } else if (running) {
                vertx.setTimer(Math.max(1, c.thinkMillis() / 2 + random.nextLong(c.thinkMillis())), id -> send(c));
            }
        });
    }

    private void count(int status, String body, Counts t) {
        if (status == 200) {
            total.ok.incrementAndGet();
            t.ok.incrementAndGet();
        } else if (status == 429 && body.contains("admitted_then_provider_rejected")) {
            total.provider429.incrementAndGet();
            t.provider429.incrementAndGet();
        } else if (status == 429) {
            total.local429.incrementAndGet();
            t.local429.incrementAndGet();
        } else {
            total.errors.incrementAndGet();
            t.errors.incrementAndGet();
        }
    }

    /**
     * The conversation with the model's tool call and its result appended, when {@code answer}
     * calls a tool; null when it answered in text (the round trip is over).
     */
    static String toolResult(String messages, String answer) {
        try {
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            com.fasterxml.jackson.databind.JsonNode message = json.readTree(answer).path("choices").path(0).path("message");
            com.fasterxml.jackson.databind.JsonNode call = message.path("tool_calls").path(0);
            if (call.isMissingNode()) {
                return null;
            }
            com.fasterxml.jackson.databind.node.ArrayNode list = (com.fasterxml.jackson.databind.node.ArrayNode) json.readTree(messages);
            list.add(message);
            list.addObject().put("role", "tool").put("tool_call_id", call.path("id").asText()).put("content", "resolved");
            return json.writeValueAsString(list);
        } catch (java.io.IOException | ClassCastException e) {
            return null;
        }
    }

    /** Tool calls answered with their result, each a round trip through the gateway. */
    long toolRoundTrips() {
        return toolRoundTrips.get();
    }

    /**
     * The names of {@link #summary}'s columns, printed above the lines: the elapsed time, the
     * totals (answered, refused by Sluice, refused by a provider, failed), requests in flight at
     * the gateway, then answered/sent per tenant and the tool round trips.
     */
    String header() {
        StringBuilder sb = new StringBuilder(String.format("%6s %6s %6s %9s %12s %6s %9s |", "time", "sent", "ok",
                "local-429", "provider-429", "errors", "in-flight"));
        byTenant.keySet().forEach(tenant -> sb.append(' ').append(tenant).append(" ok/sent"));
        sb.append(" | tool round trips");
        return sb.toString();
    }

    /** One line: totals, then per tenant, in the columns {@link #header} names. */
    String summary(long elapsedSeconds, long gatewayInFlight) {
        StringBuilder sb = new StringBuilder(String.format("%5ds %6d %6d %9d %12d %6d %9d |", elapsedSeconds,
                total.sent.get(), total.ok.get(), total.local429.get(), total.provider429.get(), total.errors.get(),
                gatewayInFlight));
        byTenant.forEach((tenant, c) -> sb.append(String.format(" %" + (tenant.length() + 8) + "s",
                c.ok.get() + "/" + c.sent.get())));
        sb.append(String.format(" | %16d", toolRoundTrips.get()));
        return sb.toString();
    }

    Counts total() {
        return total;
    }

    void close() {
        http.close();
    }
}
