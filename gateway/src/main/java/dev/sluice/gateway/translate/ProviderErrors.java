package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Provider error bodies as clients get them: only the provider's error kind and message are
 * kept, the message with anything that looks like a credential, an organisation id or an
 * internal address removed ({@link #scrub}), in the provider's own shape ({@link #scrubbed}) or,
 * for translated routes, in the OpenAI shape {@code {"error":{"message","type","param","code"}}}
 * ({@link #toOpenAi}). The provider's kind is kept as both {@code type} and {@code code}
 * (Anthropic {@code error.type}, Gemini {@code error.status}); OpenAI SDKs choose their exception
 * class from the HTTP status, not from these fields. Nothing else of a provider's body reaches a
 * client: a provider that echoes the key it was sent, its organisation or the host that answered
 * must not hand them to every tenant.
 */
public final class ProviderErrors {

    /** What stands where something was removed. */
    static final String REDACTED = "[redacted]";

    /**
     * What looks like a secret or an internal address: provider key and token formats (OpenAI
     * {@code sk-}, Anthropic {@code sk-ant-}, Google {@code AIza}), organisation and project ids,
     * a Bearer credential, masked key fragments, any run of 24 or more token characters with a digit, URLs,
     * IPv4 addresses (with a port) and dotted host names of three labels or more, or a host with a port.
     */
    private static final Pattern SECRET_OR_HOST = Pattern.compile(String.join("|",
            "(?i)bearer\\s+\\S+",
            "\\b(?:sk|rk|pk)-[A-Za-z0-9_*\\-]{4,}",
            "\\bAIza[0-9A-Za-z_\\-]{10,}",
            "\\b(?:org|proj|project|user|acct)[-_][A-Za-z0-9]{6,}",
            "\\*{3,}[A-Za-z0-9]*",
            "(?<![A-Za-z0-9_\\-+/=])(?=[A-Za-z0-9_\\-+/=]{24,})(?=[A-Za-z_\\-+/=]*\\d)[A-Za-z0-9_\\-+/=]+",
            "(?i)\\b[a-z][a-z0-9+.\\-]*://\\S+",
            "\\b\\d{1,3}(?:\\.\\d{1,3}){3}(?::\\d+)?\\b",
            "(?i)\\b(?:[a-z0-9](?:[a-z0-9\\-]*[a-z0-9])?\\.){2,}[a-z]{2,}(?::\\d+)?\\b",
            "(?i)\\b[a-z0-9\\-]+(?:\\.[a-z0-9\\-]+)*:\\d{2,5}\\b"));

    private ProviderErrors() {
    }

    /** {@code text} with every credential-, id- or host-like part replaced by {@value #REDACTED}. */
    public static String scrub(String text) {
        return SECRET_OR_HOST.matcher(text).replaceAll(REDACTED);
    }

    /**
     * A provider's error body in its own shape with only its kind and scrubbed message: OpenAI's
     * {@code {"error":{message,type,param,code}}}, Anthropic's {@code {"type":"error","error":{type,message}}},
     * Gemini's {@code {"error":{code,message,status}}}. A body that is not such an error becomes
     * one that says only the status.
     */
    public static ObjectNode scrubbed(WireFormat format, byte[] body, int status) {
        Objects.requireNonNull(format, "format");
        Optional<JsonNode> error = Json.parse(body).map(n -> n.isArray() ? n.path(0) : n).map(n -> n.path("error"))
                .filter(JsonNode::isObject);
        String fallback = "The provider answered HTTP " + status + " without a readable error.";
        ObjectNode out = Json.object();
        switch (format) {
            case OPENAI -> {
                ObjectNode e = out.putObject("error");
                e.put("message", error.map(ProviderErrors::message).orElse(fallback));
                e.put("type", error.flatMap(n -> Json.string(n, "type")).map(ProviderErrors::scrub).orElse("upstream_error"));
                putOrNull(e, "param", error.flatMap(n -> Json.string(n, "param")));
                putOrNull(e, "code", error.flatMap(n -> Json.string(n, "code")));
            }
            case ANTHROPIC -> {
                out.put("type", "error");
                ObjectNode e = out.putObject("error");
                e.put("type", error.flatMap(n -> Json.string(n, "type")).map(ProviderErrors::scrub).orElse("api_error"));
                e.put("message", error.map(ProviderErrors::message).orElse(fallback));
            }
            case GEMINI -> {
                ObjectNode e = out.putObject("error");
                e.put("code", status);
                e.put("message", error.map(ProviderErrors::message).orElse(fallback));
                e.put("status", error.flatMap(n -> Json.string(n, "status")).map(ProviderErrors::scrub).orElse("UNKNOWN"));
            }
        }
        return out;
    }

    /**
     * Translates an error body.
     *
     * @param format the provider's format
     * @param body   the raw error body, possibly empty or not JSON
     * @param status the HTTP status the provider answered with (used only in the fallback message)
     */
    public static ObjectNode toOpenAi(WireFormat format, byte[] body, int status) {
        Objects.requireNonNull(format, "format");
        Optional<ObjectNode> translated = Json.parse(body).flatMap(node -> fromNode(format, node));
        return translated.orElseGet(() -> error("upstream returned HTTP " + status + " without a readable error body",
                "upstream_error"));
    }

    /** The same for an already parsed body (such as the data of an SSE error event); empty if it is no error. */
    static Optional<ObjectNode> fromNode(WireFormat format, JsonNode node) {
        // Gemini's OpenAI-compatible endpoint has been seen wrapping errors in an array.
        JsonNode body = node.isArray() ? node.path(0) : node;
        JsonNode error = body.path("error");
        if (!error.isObject()) {
            return Optional.empty();
        }
        return switch (format) {
            case OPENAI -> {
                ObjectNode out = error(message(error), Json.string(error, "type").map(ProviderErrors::scrub)
                        .orElse("upstream_error"));
                ObjectNode e = (ObjectNode) out.path("error");
                putOrNull(e, "param", Json.string(error, "param"));
                putOrNull(e, "code", Json.string(error, "code"));
                yield Optional.of(out);
            }
            case ANTHROPIC -> Optional.of(error(message(error), Json.string(error, "type").orElse("api_error")));
            case GEMINI -> Optional.of(error(message(error), Json.string(error, "status").orElse("UNKNOWN")));
        };
    }

    /** An OpenAI-style error body. */
    static ObjectNode error(String message, String type) {
        ObjectNode out = Json.object();
        ObjectNode e = out.putObject("error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        e.put("code", type);
        return out;
    }

    private static void putOrNull(ObjectNode e, String field, Optional<String> value) {
        value.map(ProviderErrors::scrub).ifPresentOrElse(v -> e.put(field, v), () -> e.putNull(field));
    }

    private static String message(JsonNode error) {
        return Json.string(error, "message").map(ProviderErrors::scrub).orElse("upstream error without a message");
    }
}
