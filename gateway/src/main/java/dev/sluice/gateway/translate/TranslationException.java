package dev.sluice.gateway.translate;

/**
 * A client request that cannot be translated to the target provider: malformed or unsupported
 * input. The server answers it with HTTP 400 ({@code invalid_request_error}) and {@link #param()}.
 */
public final class TranslationException extends RuntimeException {

    private final String param;

    /**
     * @param param   the path of the offending field, such as {@code messages[2].content[0].type}
     * @param problem what is wrong and what was expected, such as {@code "input_audio" (expected: text)}
     */
    public TranslationException(String param, String problem) {
        super(param + ": " + problem);
        this.param = param;
    }

    /** The path of the offending request field (empty for the whole body). */
    public String param() {
        return param;
    }
}
