package dev.sluice.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A stream read is handed to the usage scan and the converters without a copy when it wraps one whole array. */
class StreamReadBytesTest {

    private static final byte[] EVENT = "data: {\"choices\":[]}\n\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void aReadThatWrapsOneWholeArrayIsReadInPlace() {
        assertThat(UpstreamCall.bytesOf(UpstreamCall.wrapped(EVENT))).isSameAs(EVENT);
    }

    @Test
    void anyOtherBufferIsCopiedWithTheSameBytes() {
        Buffer copied = Buffer.buffer(EVENT);
        assertThat(UpstreamCall.bytesOf(copied)).isEqualTo(EVENT).isNotSameAs(EVENT);
        Buffer part = UpstreamCall.wrapped(EVENT).slice(6, EVENT.length - 2);
        assertThat(new String(UpstreamCall.bytesOf(part), StandardCharsets.UTF_8)).isEqualTo("{\"choices\":[]}");
    }
}
