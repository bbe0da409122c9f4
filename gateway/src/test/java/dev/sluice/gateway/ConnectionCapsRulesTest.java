package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The rules of {@link ConnectionCaps}: a total, a share per address, and the descriptor limit below both. */
class ConnectionCapsRulesTest {

    @Test
    void theTotalCountsEveryAddress() {
        ConnectionCaps caps = new ConnectionCaps(3, 10);
        assertThat(caps.tryOpen("10.0.0.1")).isTrue();
        assertThat(caps.tryOpen("10.0.0.2")).isTrue();
        assertThat(caps.tryOpen("10.0.0.3")).isTrue();
        assertThat(caps.tryOpen("10.0.0.4")).isFalse();
        assertThat(caps.open()).as("a refusal counts nothing").isEqualTo(3);
        caps.closed("10.0.0.2");
        assertThat(caps.tryOpen("10.0.0.4")).isTrue();
    }

    @Test
    void oneAddressGetsItsShareAndNoMore() {
        ConnectionCaps caps = new ConnectionCaps(100, 2);
        assertThat(caps.tryOpen("10.0.0.1")).isTrue();
        assertThat(caps.tryOpen("10.0.0.1")).isTrue();
        assertThat(caps.tryOpen("10.0.0.1")).isFalse();
        assertThat(caps.tryOpen("10.0.0.2")).as("another address is not held back").isTrue();
        assertThat(caps.open()).isEqualTo(3);
        caps.closed("10.0.0.1");
        assertThat(caps.tryOpen("10.0.0.1")).isTrue();
    }

    @Test
    void beyondTheCapsAQuarterOfTheTotalIsHeldForItsAnswerAndTheRestDropped() {
        ConnectionCaps caps = new ConnectionCaps(8, 8);
        assertThat(caps.tryRefuse()).isTrue();
        assertThat(caps.tryRefuse()).isTrue();
        assertThat(caps.tryRefuse()).as("two of eight held for their 503").isFalse();
        caps.refusedClosed();
        assertThat(caps.tryRefuse()).isTrue();
        assertThat(new ConnectionCaps(3, 3).refusingCap()).as("at least one").isEqualTo(1);
    }

    @Test
    void theTotalIsLoweredToHalfTheDescriptorLimit() {
        long fds = ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getMaxFileDescriptorCount();
        // Each client call also holds an upstream connection: half the descriptors are kept for those and the rest.
        assertThat(ConnectionCaps.of(Integer.MAX_VALUE, 10).total()).isEqualTo((int) Math.min(Integer.MAX_VALUE, fds / 2));
        assertThat(ConnectionCaps.of(7, 10).total()).as("a configured total below it stands").isEqualTo(7);
    }
}
