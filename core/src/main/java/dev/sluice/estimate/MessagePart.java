package dev.sluice.estimate;

import java.util.Objects;
import java.util.Optional;

/**
 * One chat message as the estimator sees it, independent of the provider's wire format.
 *
 * @param role the speaker, e.g. {@code "system"}, {@code "user"}, {@code "assistant"},
 *             {@code "tool"}; a provider's top-level system prompt is passed as a system message
 * @param name the optional participant name (OpenAI {@code name}), which costs extra tokens
 * @param text all text the message carries, concatenated: content parts, tool-call arguments and
 *             tool results; images are counted separately in {@link PromptShape}
 */
public record MessagePart(String role, Optional<String> name, String text) {

    /** Validates that no component is null. */
    public MessagePart {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(text, "text");
    }

    /** A message without a participant name. */
    public static MessagePart of(String role, String text) {
        return new MessagePart(role, Optional.empty(), text);
    }
}
