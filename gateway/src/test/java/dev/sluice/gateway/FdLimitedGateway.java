package dev.sluice.gateway;

import dev.sluice.runtime.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A gateway in a process of its own, for {@link DescriptorLimitTest}, which starts it under a low
 * {@code ulimit -n}: reads its configuration from the file named by its argument, prints
 * {@code port N} once listening, and stops when its standard input ends.
 */
final class FdLimitedGateway {

    private FdLimitedGateway() {
    }

    public static void main(String[] args) throws Exception {
        var config = ConfigLoader.parse(Files.readString(Path.of(args[0])), args[0], v -> null);
        Gateway g = GatewayFixture.await(Gateway.builder(config).instances(1).start());
        System.out.println("port " + g.port());
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the test closes our input
        }
        GatewayFixture.await(g.stop());
        System.exit(0);
    }
}
