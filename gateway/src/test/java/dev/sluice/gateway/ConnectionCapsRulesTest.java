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
    void theTotalIsWhatTheDescriptorsLeaveForAClientItsUpstreamCallAndTheRoomFor503s() {
        // 512 descriptors, 130 open (jars, selectors), 64 kept: 318 left, 4/9 of them for clients.
        assertThat(ConnectionCaps.totalFor(10_000, 512, 130)).isEqualTo(141);
        ConnectionCaps caps = new ConnectionCaps(141, 10);
        assertThat(caps.acceptCeiling()).as("the total and a quarter of it held for 503s").isEqualTo(176);
        assertThat(2 * 141 + 35 + 130 + 64).as("with an upstream call each, within the limit").isLessThanOrEqualTo(512);
        assertThat(ConnectionCaps.totalFor(7, 512, 130)).as("a configured total below it stands").isEqualTo(7);
        assertThat(ConnectionCaps.totalFor(10_000, 100, 90)).as("at least one").isEqualTo(1);
    }

    @Test
    void theCapsOfThisProcessAreDerivedFromItsSoftLimitAndWhatItHasOpen() {
        var os = (com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long open = os.getOpenFileDescriptorCount();
        int total = ConnectionCaps.of(Integer.MAX_VALUE, 10).total();
        assertThat(total).isBetween(ConnectionCaps.totalFor(Integer.MAX_VALUE, os.getMaxFileDescriptorCount(), open + 8),
                ConnectionCaps.totalFor(Integer.MAX_VALUE, os.getMaxFileDescriptorCount(), open - 8));
    }

    @Test
    void theAcceptorCountsSocketsUpToTheTotalAndTheRoomFor503s() {
        ConnectionCaps caps = new ConnectionCaps(8, 8);
        for (int i = 0; i < 10; i++) {
            assertThat(caps.tryAccept()).as("socket " + i).isTrue();
        }
        assertThat(caps.tryAccept()).as("eight and two held for their 503: the eleventh is closed").isFalse();
        caps.acceptedClosed();
        assertThat(caps.tryAccept()).isTrue();
    }
}
