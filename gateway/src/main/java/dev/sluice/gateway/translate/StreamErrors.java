package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/**
 * The error a relayed native stream ends with when its provider's stream broke, stalled, was cut
 * short or carried garbage, in the route's own form, so that its SDK raises an error instead of
 * taking a partial answer for a whole one (or seeing a bare reset): Anthropic's
 * {@code event: error} with an {@code api_error}, an error object for Gemini (an SSE event, or
 * the last element of a JSON-array stream), and for the OpenAI Responses API its {@code error}
 * event.
 */
public final class StreamErrors {

    private StreamErrors() {
    }

    /**
     * The bytes that end the stream.
     *
     * @param format       the route's (and its provider's) format
     * @param responsesApi whether an OpenAI stream is the Responses API's (chat streams have their own converter)
     * @param jsonArray    whether a Gemini stream is a JSON array rather than SSE
     * @param message      what went wrong, one sentence with no provider text
     */
    public static byte[] event(WireFormat format, boolean responsesApi, boolean jsonArray, String message) {
        ObjectNode body = Json.object();
        String out = switch (format) {
            case ANTHROPIC -> {
                body.put("type", "error");
                ObjectNode e = body.putObject("error");
                e.put("type", "api_error");
                e.put("message", message);
                yield "event: error\ndata: " + Json.write(body) + "\n\n";
            }
            case GEMINI -> {
                ObjectNode e = body.putObject("error");
                e.put("code", 502);
                e.put("message", message);
                e.put("status", "UNAVAILABLE");
                yield jsonArray ? ",\n" + Json.write(body) + "]" : "data: " + Json.write(body) + "\n\n";
            }
            case OPENAI -> {
                body.put("type", "error");
                body.put("code", "upstream_error");
                body.put("message", message);
                body.putNull("param");
                yield (responsesApi ? "event: error\n" : "") + "data: " + Json.write(body) + "\n\n";
            }
        };
        return out.getBytes(StandardCharsets.UTF_8);
    }
}
