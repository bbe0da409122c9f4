package dev.sluice.runtime.request;

/**
 * What a request needs of the model that serves it, read from the request itself: what the
 * fallback policy checks a deployment's capabilities against before the request may run there.
 *
 * @param promptTokens the prompt's size as counted before sending
 * @param maxOutputTokens the output the client asked room for ({@code max_tokens}); 0 when it named none
 * @param tools whether it offers the model tools
 * @param parallelTools whether it lets the model call several tools in one turn
 * @param jsonSchema whether it asks for output following a JSON schema
 * @param images whether its messages hold images
 */
public record RequestNeeds(long promptTokens, long maxOutputTokens, boolean tools, boolean parallelTools,
        boolean jsonSchema, boolean images) {

    public RequestNeeds {
        if (promptTokens < 0 || maxOutputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + promptTokens + "/" + maxOutputTokens + " (expected: >= 0)");
        }
    }

    /** A text-only request of {@code promptTokens} that asks for nothing else. */
    public static RequestNeeds text(long promptTokens, long maxOutputTokens) {
        return new RequestNeeds(promptTokens, maxOutputTokens, false, false, false, false);
    }
}
