package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.NanoClock;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The governor's wake-ups are the gateway's, not the listener's that asked for them. */
class WakeupDriverTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWakeupAskedForFromAListenerStillFiresOnceThatListenerIsUndeployed() throws Exception {
        NanoClock clock = NanoClock.system();
        CountDownLatch fired = new CountDownLatch(1);
        WakeupDriver wakeups = new WakeupDriver(vertx, clock, then -> {
            fired.countDown();
            then.run();
        }, () -> Long.MAX_VALUE);
        // A listener announces a wake-up 300 ms away from its own event loop, then is undeployed
        // (as a drain undeploys the listeners one by one): its own timers are cancelled with it.
        String listener = vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                wakeups.request(clock.nanos() + TimeUnit.MILLISECONDS.toNanos(300));
                return Future.succeededFuture();
            }
        }).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.undeploy(listener).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertThat(fired.await(10, TimeUnit.SECONDS)).as("the wake-up fired").isTrue();
        wakeups.close();
    }
}
