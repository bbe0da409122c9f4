package dev.sluice.bench.load;

import dev.sluice.gateway.Gateway;
import dev.sluice.ledger.Ledger;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The child process the harness starts for Sluice: {@code GatewayMain --config FILE}. Serves the
 * configuration the way {@code sluice serve} does (default event loops, in-memory store) until
 * the process is told to stop, without depending on the command line module being built. The
 * usage ledger is opened from the file's {@code ledger:} section as {@code sluice serve} opens it.
 */
public final class GatewayMain {

    private GatewayMain() {}

    /** Serves {@code --config FILE} until SIGTERM. */
    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !"--config".equals(args[0])) {
            System.err.println("usage: GatewayMain --config FILE");
            System.exit(2);
        }
        SluiceConfig config = ConfigLoader.load(Path.of(args[1]));
        Gateway g = Gateway.builder(config).ledger(Ledger.open(config.ledger())).start().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        System.out.println("Sluice listening on " + g.baseUrl());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                g.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // Ending anyway.
            }
            stopped.countDown();
        }, "gateway-shutdown"));
        stopped.await();
    }
}
