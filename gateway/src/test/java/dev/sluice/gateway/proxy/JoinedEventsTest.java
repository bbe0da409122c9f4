package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The events of one upstream read go to the client as one buffer, byte for byte as they were produced. */
class JoinedEventsTest {

    @Test
    void threeEventsBecomeOneBufferInOrder() {
        List<String> events = List.of("data: {\"a\":1}\n\n", "data: {\"b\":\"héllo\"}\n\n", "data: [DONE]\n\n");
        assertThat(UpstreamCall.joined(events).toString(java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(String.join("", events));
        assertThat(UpstreamCall.joined(events).length()).isEqualTo(String.join("", events)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void oneEventIsItsOwnBuffer() {
        assertThat(UpstreamCall.joined(List.of("data: x\n\n")).toString()).isEqualTo("data: x\n\n");
    }

    @Test
    void noEventsIsAnEmptyBufferThatIsNeverWritten() {
        assertThat(UpstreamCall.joined(List.of()).length()).isZero();
    }
}
