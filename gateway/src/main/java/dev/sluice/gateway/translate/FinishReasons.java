package dev.sluice.gateway.translate;

/** Provider stop reasons to OpenAI {@code finish_reason} values. */
final class FinishReasons {

    private FinishReasons() {
    }

    /** Anthropic {@code stop_reason}; unknown future reasons read as a normal stop. */
    static String fromAnthropic(String stopReason) {
        return switch (stopReason) {
            case "max_tokens", "model_context_window_exceeded" -> "length";
            case "tool_use" -> "tool_calls";
            case "refusal" -> "content_filter";
            default -> "stop"; // end_turn, stop_sequence, pause_turn
        };
    }

    /**
     * Gemini {@code finishReason}. Gemini says STOP after function calls, where OpenAI says
     * tool_calls, hence {@code calledTools}.
     */
    static String fromGemini(String finishReason, boolean calledTools) {
        return switch (finishReason) {
            case "MAX_TOKENS" -> "length";
            case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
                    "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION" -> "content_filter";
            default -> calledTools ? "tool_calls" : "stop"; // STOP, OTHER, MALFORMED_FUNCTION_CALL, ...
        };
    }
}
