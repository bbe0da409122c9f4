package dev.sluice.bench.load;

import dev.sluice.gateway.Gateway;
import dev.sluice.runtime.config.ConfigLoader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The gateway process of {@link BoundedMemory}: serves {@code --config FILE} (in-memory store,
 * ledger as configured), prints {@code port N} once listening, and watches its own heap from then
 * on: the highest heap in use (sampled every 5 ms, garbage included) and the highest heap left after
 * any collection. The line {@code stats} on its input prints
 * {@code stats heap_peak=B live_peak=B heap_max=B in_flight=N held=B duplicates=N balanced=B}; the end of its input stops it.
 */
public final class HeldAnswersGateway {

    private HeldAnswersGateway() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !"--config".equals(args[0])) {
            System.err.println("usage: HeldAnswersGateway --config FILE");
            System.exit(2);
        }
        var config = ConfigLoader.load(Path.of(args[1]));
        Gateway g = Gateway.builder(config).start().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        LargeAnswers.Sampler inUse = new LargeAnswers.Sampler();
        LargeAnswers.LiveAfterGc live = new LargeAnswers.LiveAfterGc();
        inUse.start();
        System.out.println("port " + g.port());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("stats")) {
                System.out.printf(Locale.ROOT, "stats heap_peak=%d live_peak=%d heap_max=%d in_flight=%d held=%d duplicates=%d balanced=%b%n",
                        inUse.peak(), live.peak(), ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax(),
                        g.counters().inFlight(), g.translationBytesHeld(), g.counters().duplicateAnswers(),
                        g.counters().balanced());
                System.out.flush();
            }
        }
        inUse.stop();
        live.close();
        g.stop().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        System.exit(0);
    }
}
