package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DemoTrafficTest {

    static final String ASKED = "[{\"role\":\"user\",\"content\":\"Summarise ticket #7\"}]";

    @Test
    void aToolCallIsAnsweredWithItsResultAppendedToTheConversation() {
        String answer = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
                + "\"type\":\"function\",\"function\":{\"name\":\"lookup_ticket\",\"arguments\":\"{\\\"ticket\\\":1}\"}}]},"
                + "\"finish_reason\":\"tool_calls\"}]}";
        String next = DemoTraffic.toolResult(ASKED, answer);
        assertThat(next).startsWith("[{\"role\":\"user\"").contains("\"tool_calls\"")
                .endsWith("{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"resolved\"}]");
    }

    @Test
    void aTextAnswerEndsTheRoundTrip() {
        assertThat(DemoTraffic.toolResult(ASKED, "{\"choices\":[{\"message\":{\"content\":\"done\"}}]}")).isNull();
        assertThat(DemoTraffic.toolResult(ASKED, "not json")).isNull();
    }
}
