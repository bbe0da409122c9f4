package dev.sluice.gateway.alert;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers alert notifications to a webhook: one JSON POST each, in order, one at a time; a
 * failure (no answer, or a status outside 2xx) is tried again after the backoff, doubled at each
 * further try, up to the configured tries. The queue is bounded: when full, the oldest waiting
 * notification is dropped (and counted). Nothing here runs on a client request's way, and nothing
 * waits: the sends are the Vert.x client's, the retries its timers.
 */
public final class AlertWebhook {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.alerts");

    private final Vertx vertx;
    private final HttpClient client;
    private final RequestOptions target;
    private final int maxQueue;
    private final int maxAttempts;
    private final long backoffMillis;
    private final Deque<Buffer> queue = new ArrayDeque<>();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private boolean sending;

    public AlertWebhook(Vertx vertx, URI url, int maxQueue, int maxAttempts, Duration backoff) {
        this.vertx = vertx;
        boolean tls = "https".equals(url.getScheme());
        this.client = vertx.createHttpClient(new HttpClientOptions().setSsl(tls).setConnectTimeout(5_000)
                .setIdleTimeout(30));
        int port = url.getPort() > 0 ? url.getPort() : tls ? 443 : 80;
        String path = (url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath())
                + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
        this.target = new RequestOptions().setMethod(HttpMethod.POST).setHost(url.getHost()).setPort(port).setURI(path)
                .setTimeout(10_000).putHeader("content-type", "application/json");
        this.maxQueue = maxQueue;
        this.maxAttempts = maxAttempts;
        this.backoffMillis = backoff.toMillis();
    }

    /** Queues {@code json} for delivery; returns at once. */
    public void send(Buffer json) {
        synchronized (this) {
            if (queue.size() >= maxQueue) {
                queue.pollFirst();
                dropped.incrementAndGet();
            }
            queue.addLast(json);
            if (sending) {
                return;
            }
            sending = true;
        }
        vertx.runOnContext(v -> next());
    }

    /** Notifications the webhook accepted. */
    public long delivered() {
        return delivered.get();
    }

    /** Notifications dropped: the queue was full, or every try failed. */
    public long dropped() {
        return dropped.get();
    }

    public void close() {
        client.close();
    }

    private void next() {
        Buffer b;
        synchronized (this) {
            b = queue.pollFirst();
            if (b == null) {
                sending = false;
                return;
            }
        }
        attempt(b, 1);
    }

    private void attempt(Buffer body, int n) {
        client.request(target).compose(r -> r.send(body)).onComplete(ar -> {
            int status = ar.succeeded() ? ar.result().statusCode() : 0;
            if (status >= 200 && status < 300) {
                delivered.incrementAndGet();
                next();
                return;
            }
            String why = ar.succeeded() ? "status " + status : ar.cause().getClass().getSimpleName();
            if (n >= maxAttempts) {
                dropped.incrementAndGet();
                LOG.warn("alert webhook: gave up on a notification after {} tries ({})", n, why);
                next();
                return;
            }
            long wait = Math.max(1, backoffMillis << Math.min(n - 1, 16));
            vertx.setTimer(wait, t -> attempt(body, n + 1));
        });
    }
}
