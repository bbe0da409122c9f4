package dev.sluice.ledger;

import dev.sluice.runtime.config.LedgerSettings;
import dev.sluice.runtime.event.RequestEvent;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

/**
 * The process {@link KillTest} kills: records requests at about 2,000 a second into an SQLite
 * ledger until it is killed, and prints every 50th request's number and the wall time it was
 * handed to the ledger. Never closes the ledger.
 */
public final class KillChild {

    private KillChild() {}

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        Duration flush = Duration.ofMillis(Long.parseLong(args[1]));
        JdbcLedger ledger = JdbcLedger.open(LedgerSettings.sqlite(file).withBuffering(flush, 65_536, 1_000),
                Clock.systemUTC(), "child");
        PrintStream out = System.out;
        out.println("ready");
        out.flush();
        for (long n = 0; ; n++) {
            long now = System.currentTimeMillis();
            ledger.onRequest(event(n, now));
            if (n % 50 == 0) {
                out.println(n + " " + now);
                out.flush();
            }
            LockSupport.parkNanos(500_000); // a steady stream, like a gateway's, not a burst
        }
    }

    /** Request {@code n}: its number is its trace id. */
    static RequestEvent event(long n, long atMillis) {
        return Events.request(String.format("%032x", n), Instant.ofEpochMilli(atMillis))
                .caller("acme-corp", "acme", "acme/search", "a1").span(Events.span(n)).estimate(100, 50, 0)
                .usage(90, 40, 0).latencyMillis(0).attempt(dev.sluice.runtime.event.AttemptResult.ANSWERED)
                .estimate(100, 50, 0).usage(90, 40, 0).done().build();
    }
}
