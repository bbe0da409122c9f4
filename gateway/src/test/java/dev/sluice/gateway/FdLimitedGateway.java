package dev.sluice.gateway;

import dev.sluice.runtime.config.ConfigLoader;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A gateway in a process of its own, for {@link DescriptorLimitTest}, which starts it under a low
 * {@code ulimit -n}: reads its configuration from the file named by its argument, prints
 * {@code port N} once listening, and stops when its standard input ends. Meanwhile the line
 * {@code hog} on its input takes every descriptor left (files open on /dev/null; {@code hogged N}
 * printed) and {@code free} gives them back ({@code freed}): the limit reached by something other
 * than the clients.
 */
final class FdLimitedGateway {

    private FdLimitedGateway() {
    }

    public static void main(String[] args) throws Exception {
        var config = ConfigLoader.parse(Files.readString(Path.of(args[0])), args[0], v -> null);
        Gateway g = GatewayFixture.await(Gateway.builder(config).instances(1).start());
        System.out.println("port " + g.port());
        System.out.flush();
        List<FileInputStream> hogged = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("hog")) {
                try {
                    while (true) {
                        hogged.add(new FileInputStream("/dev/null"));
                    }
                } catch (IOException e) {
                    System.out.println("hogged " + hogged.size());
                }
            } else if (line.equals("free")) {
                for (FileInputStream f : hogged) {
                    f.close();
                }
                hogged.clear();
                System.out.println("freed");
            }
            System.out.flush();
        }
        GatewayFixture.await(g.stop());
        System.exit(0);
    }
}
