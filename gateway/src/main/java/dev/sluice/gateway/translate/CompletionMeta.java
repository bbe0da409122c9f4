package dev.sluice.gateway.translate;

import java.util.Objects;

/**
 * The identity fields of a translated {@code chat.completion} or {@code chat.completion.chunk}:
 * chosen by the gateway so translated answers look the same whatever the provider.
 *
 * @param id      the completion id, such as {@code chatcmpl-7f3a}
 * @param model   the provider's model name, as every answer names it (docs/CLIENTS.md, the model rule)
 * @param created creation time in epoch seconds
 */
public record CompletionMeta(String id, String model, long created) {

    /** Validates that the id and model are non-blank and the time is not negative. */
    public CompletionMeta {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(model, "model");
        if (id.isBlank()) {
            throw new IllegalArgumentException("id: \"" + id + "\" (expected: non-blank)");
        }
        if (model.isBlank()) {
            throw new IllegalArgumentException("model: \"" + model + "\" (expected: non-blank)");
        }
        if (created < 0) {
            throw new IllegalArgumentException("created: " + created + " (expected: >= 0)");
        }
    }

    /** A tool call id for the {@code index}-th call of this completion, for providers that send none. */
    String toolCallId(int index) {
        String base = id.startsWith("chatcmpl-") ? id.substring("chatcmpl-".length()) : id;
        return "call_" + base + "_" + index;
    }
}
