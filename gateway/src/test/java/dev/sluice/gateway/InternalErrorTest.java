package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.event.AttemptEvent;
import dev.sluice.runtime.event.RequestEvent;
import dev.sluice.runtime.event.RequestEventSink;
import dev.sluice.time.NanoClock;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The catch-all: an exception nobody expected, thrown while a request is served, ends that request
 * with one 500 in its route's shape and a closed connection; nothing is left open (the fixture checks
 * the ledger balanced and no lease open after each test) and the gateway goes on serving. The
 * fault is a clock that fails once when the exchange reads it for the request's deadline; a
 * consumer of events that throws breaks nothing at all.
 */
class InternalErrorTest {

    static final AtomicBoolean BREAK_CLOCK = new AtomicBoolean();
    static final AtomicBoolean BREAK_SINK = new AtomicBoolean();

    /** The system clock, failing once for a caller in the exchange while {@link #BREAK_CLOCK} is set. */
    static final NanoClock CLOCK = new NanoClock() {
        @Override
        public long nanos() {
            if (BREAK_CLOCK.get() && StackWalker.getInstance().walk(s -> s.anyMatch(
                    f -> f.getClassName().equals("dev.sluice.gateway.proxy.Exchange"))) && BREAK_CLOCK.getAndSet(false)) {
                throw new IllegalStateException("a fault quoting " + GatewayFixture.KEY);
            }
            return NanoClock.system().nanos();
        }

        @Override
        public long epochMillis() {
            return NanoClock.system().epochMillis();
        }
    };

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture().clock(CLOCK).events(new RequestEventSink() {
        @Override
        public void onAttempt(AttemptEvent event) {
            if (BREAK_SINK.get()) {
                throw new IllegalStateException("a consumer's bug");
            }
        }

        @Override
        public void onRequest(RequestEvent event) {
            if (BREAK_SINK.get()) {
                throw new IllegalStateException("a consumer's bug");
            }
        }
    });

    @AfterEach
    void mend() {
        BREAK_CLOCK.set(false);
        BREAK_SINK.set(false);
    }

    @Test
    void anUnexpectedExceptionIsOne500InTheRoutesShapeAndTheNextRequestIsServed() throws Exception {
        BREAK_CLOCK.set(true);
        var broken = f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", ""));
        assertThat(broken.statusCode()).isEqualTo(500);
        assertThat(broken.body()).contains("\"code\":\"internal_error\"", "\"type\":").doesNotContain(GatewayFixture.KEY)
                .doesNotContain("IllegalStateException");
        assertThat(broken.headers().firstValue("connection")).hasValue("close");
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", "")).statusCode()).isEqualTo(200);
    }

    @Test
    void onAnAnthropicRouteThe500IsAnthropicsErrorShape() throws Exception {
        BREAK_CLOCK.set(true);
        var broken = f.post("/v1/messages", null, "{\"model\":\"claude\",\"max_tokens\":20,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"hi\"}]}", "x-api-key", GatewayFixture.KEY, "anthropic-version", "2023-06-01");
        assertThat(broken.statusCode()).isEqualTo(500);
        assertThat(broken.body()).contains("\"type\":\"error\"", "internal_error");
    }

    @Test
    void anEventConsumerThatThrowsBreaksNoRequest() throws Exception {
        BREAK_SINK.set(true);
        assertThat(f.post("/v1/chat/completions", GatewayFixture.KEY, ErrorsTest.chat("chat", "")).statusCode()).isEqualTo(200);
    }
}
