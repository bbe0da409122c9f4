package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.gateway.http.Operation;
import dev.sluice.gateway.translate.AnthropicRequests;
import dev.sluice.gateway.translate.ChatStreamConverter;
import dev.sluice.gateway.translate.ChatStreams;
import dev.sluice.gateway.translate.GeminiRequests;
import dev.sluice.gateway.translate.ResponsesAnswers;
import dev.sluice.gateway.translate.ResponsesRequests;
import dev.sluice.gateway.translate.WireFormat;
import dev.sluice.runtime.config.ProfileConfig.Task;
import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.MultiMap;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * How one client request goes upstream: the path on the deployment's base URL, the body, the
 * credential headers, the wire format of the answer and whether it is translated back.
 *
 * @param pathAndQuery appended to the deployment's base URL
 * @param body the upstream body
 * @param verbatim the same body as bytes taken from the client's own, when it can be forwarded
 *        without serialising the tree again (see {@link VerbatimBody})
 * @param format what the provider answers in
 * @param translation how the answer becomes what the client asked for
 * @param streaming whether the answer is a stream
 * @param clientWantsUsage for OpenAI chat streams: whether the client asked for the usage chunk
 * @param answer what a translated answer becomes for the client
 */
record UpstreamPlan(String pathAndQuery, ObjectNode body, Optional<byte[]> verbatim, WireFormat format,
        Translation translation, boolean streaming, boolean clientWantsUsage, ClientAnswer answer) {

    /** A plan whose body is sent as serialised from its tree, answered as a chat completion. */
    UpstreamPlan(String pathAndQuery, ObjectNode body, WireFormat format, Translation translation, boolean streaming,
            boolean clientWantsUsage) {
        this(pathAndQuery, body, Optional.empty(), format, translation, streaming, clientWantsUsage, ClientAnswer.CHAT);
    }

    /** A plan answered as a chat completion when translated. */
    UpstreamPlan(String pathAndQuery, ObjectNode body, Optional<byte[]> verbatim, WireFormat format,
            Translation translation, boolean streaming, boolean clientWantsUsage) {
        this(pathAndQuery, body, verbatim, format, translation, streaming, clientWantsUsage, ClientAnswer.CHAT);
    }

    /**
     * What a translated answer (a chat completion, or a chat chunk stream, made from the provider's)
     * is sent as: the chat completion itself ({@code /v1/chat/completions}), or a Responses API
     * answer ({@code /v1/responses}).
     */
    enum ClientAnswer {
        CHAT, RESPONSES
    }

    /** A translated whole answer, already a chat completion, in the shape the client asked for. */
    ObjectNode forClient(ObjectNode chatCompletion) {
        return answer == ClientAnswer.RESPONSES ? ResponsesAnswers.fromChat(chatCompletion) : chatCompletion;
    }

    /** A translated stream, already converted to chat chunks, in the shape the client asked for. */
    ChatStreamConverter forClient(ChatStreamConverter chatStream) {
        return answer == ClientAnswer.RESPONSES ? ChatStreams.toResponses(chatStream) : chatStream;
    }

    /**
     * For brownout: the plan with the request's output ceiling lowered to {@code factor} of what it
     * asked for, or of {@code unasked} (what was reserved for it) when it set no ceiling; never
     * below one token. The body is then serialised from the changed tree.
     */
    UpstreamPlan capOutput(Operation op, double factor, long unasked) {
        switch (format) {
            case OPENAI -> {
                if (op == Operation.OPENAI_EMBEDDINGS) {
                    return this;
                }
                String field = op == Operation.OPENAI_RESPONSES ? "max_output_tokens"
                        : body.has("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
                lower(body, field, factor, unasked);
            }
            case ANTHROPIC -> lower(body, "max_tokens", factor, unasked);
            case GEMINI -> {
                JsonNode g = body.path("generationConfig");
                lower(g.isObject() ? (ObjectNode) g : body.putObject("generationConfig"), "maxOutputTokens", factor,
                        unasked);
            }
        }
        return new UpstreamPlan(pathAndQuery, body, Optional.empty(), format, translation, streaming, clientWantsUsage,
                answer);
    }

    private static void lower(ObjectNode node, String field, double factor, long unasked) {
        JsonNode v = node.path(field);
        long asked = v.isIntegralNumber() && v.asLong() > 0 ? v.asLong() : unasked;
        node.put(field, Math.max(1, (long) Math.floor(asked * factor)));
    }

    /** The body as sent. */
    byte[] bytes() {
        return verbatim.orElseGet(() -> ProxyJson.bytes(body));
    }

    /** Whether the answer passes through as the provider sent it, or is translated to the OpenAI chat format. */
    enum Translation {
        NATIVE, FROM_ANTHROPIC, FROM_GEMINI
    }

    /** The Anthropic API version sent when the client names none. */
    static final String ANTHROPIC_VERSION = "2023-06-01";

    /** A route that this deployment cannot serve. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Plans the call of {@code body}, parsed from the client's {@code raw} bytes. May throw
     * {@link Unsupported} (route and deployment do not match) or the translator's
     * {@code TranslationException} (a chat request the provider cannot take).
     */
    static UpstreamPlan of(Operation op, ObjectNode body, byte[] raw, ProfileConfig profile, DeploymentConfig d,
            String query) {
        DeploymentKind kind = d.kind();
        String base = basePath(d);
        boolean stream = body.path("stream").asBoolean(false);
        boolean embedding = profile.task() == Task.EMBEDDING;
        if (op.embedding() && !embedding) {
            throw new Unsupported(op.suffix() + " serves embedding profiles only; profile " + profile.id()
                    + " is a chat profile (a profile is marked with task: embedding)");
        }
        if (embedding && op != Operation.OPENAI_EMBEDDINGS && !op.embedding()) {
            throw new Unsupported("profile " + profile.id() + " is an embedding profile (task: embedding); it serves "
                    + "embedContent, batchEmbedContents and /v1/embeddings, not " + op.suffix());
        }
        switch (op.family()) {
            case OPENAI -> {
                if (kind.openAiFamily()) {
                    body.put("model", profile.model());
                    boolean wantsUsage = body.path("stream_options").path("include_usage").asBoolean(false);
                    Optional<byte[]> verbatim;
                    if (stream && !wantsUsage && (op == Operation.OPENAI_CHAT || op == Operation.OPENAI_COMPLETIONS)) {
                        // Ask for the usage chunk so the stream settles with real counts; it is withheld from the client.
                        JsonNode so = body.path("stream_options");
                        (so.isObject() ? (ObjectNode) so : body.putObject("stream_options")).put("include_usage", true);
                        verbatim = Optional.empty();
                    } else {
                        verbatim = VerbatimBody.withModel(raw, profile.model());
                    }
                    return new UpstreamPlan(openAiPath(op, d, base), body, verbatim, WireFormat.OPENAI,
                            Translation.NATIVE, stream, wantsUsage);
                }
                if (op == Operation.OPENAI_RESPONSES) {
                    // No Responses API upstream: the request is read as the chat request it amounts to, and the
                    // translated chat answer is made a Responses answer (always with its usage, which it carries).
                    ObjectNode chat = ResponsesRequests.toChat(body);
                    UpstreamPlan p = translated(chat, profile, kind, base, stream, true);
                    return new UpstreamPlan(p.pathAndQuery, p.body, Optional.empty(), p.format, p.translation, stream,
                            true, ClientAnswer.RESPONSES);
                }
                if (op != Operation.OPENAI_CHAT) {
                    throw new Unsupported("/v1/" + op.suffix() + " is not available for profile " + profile.id()
                            + ", which is served by a " + kind.wireName() + " deployment; use /v1/chat/completions"
                            + " or /v1/responses");
                }
                boolean wantsUsage = body.path("stream_options").path("include_usage").asBoolean(false);
                return translated(body, profile, kind, base, stream, wantsUsage);
            }
            case ANTHROPIC -> {
                if (kind != DeploymentKind.ANTHROPIC) {
                    throw new Unsupported("/v1/messages serves Anthropic deployments only; profile " + profile.id()
                            + " is served by a " + kind.wireName() + " deployment; use its native route or "
                            + "/v1/chat/completions");
                }
                body.put("model", profile.model());
                return new UpstreamPlan(base + "/v1/messages", body, VerbatimBody.withModel(raw, profile.model()),
                        WireFormat.ANTHROPIC, Translation.NATIVE, stream, false);
            }
            default -> {
                if (kind != DeploymentKind.GEMINI) {
                    throw new Unsupported("the Gemini routes serve Gemini deployments only; profile " + profile.id()
                            + " is served by a " + kind.wireName() + " deployment; use /v1/chat/completions");
                }
                boolean streaming = op == Operation.GEMINI_STREAM_GENERATE;
                // Upstream is always v1beta, the superset: a client on v1 asks for nothing v1beta lacks.
                String path = base + "/v1beta/models/" + URLEncoder.encode(profile.model(), StandardCharsets.UTF_8)
                        + ":" + op.suffix() + (streaming && query != null && query.contains("alt=sse") ? "?alt=sse" : "");
                if (op == Operation.GEMINI_BATCH_EMBED) {
                    // Each request names its model, which must be the path's: the provider's, not the profile.
                    for (JsonNode r : body.path("requests")) {
                        if (r.isObject()) {
                            ((ObjectNode) r).put("model", "models/" + profile.model());
                        }
                    }
                    return new UpstreamPlan(path, body, WireFormat.GEMINI, Translation.NATIVE, false, false);
                }
                return new UpstreamPlan(path, body, VerbatimBody.unchanged(raw), WireFormat.GEMINI, Translation.NATIVE,
                        streaming, false);
            }
        }
    }

    /** A chat request for an Anthropic or Gemini deployment, translated. */
    private static UpstreamPlan translated(ObjectNode chat, ProfileConfig profile, DeploymentKind kind, String base,
            boolean stream, boolean wantsUsage) {
        if (kind == DeploymentKind.ANTHROPIC) {
            ObjectNode out = AnthropicRequests.fromChat(chat, profile.model(), profile.defaultMaxOutputTokens());
            return new UpstreamPlan(base + "/v1/messages", out, WireFormat.ANTHROPIC, Translation.FROM_ANTHROPIC, stream,
                    wantsUsage);
        }
        ObjectNode out = GeminiRequests.fromChat(chat);
        return new UpstreamPlan(base + GeminiRequests.path(profile.model(), stream), out, WireFormat.GEMINI,
                Translation.FROM_GEMINI, stream, wantsUsage);
    }

    private static String openAiPath(Operation op, DeploymentConfig d, String base) {
        if (d.kind() == DeploymentKind.AZURE_OPENAI) {
            String version = "?api-version=" + URLEncoder.encode(d.apiVersion().orElse(DeploymentConfig.DEFAULT_AZURE_API_VERSION),
                    StandardCharsets.UTF_8);
            if (op == Operation.OPENAI_RESPONSES) {
                return base + "/openai/responses" + version;
            }
            return base + "/openai/deployments/" + URLEncoder.encode(d.azureDeployment().orElseThrow(),
                    StandardCharsets.UTF_8) + "/" + op.suffix() + version;
        }
        // A bare host means the standard /v1 layout; a base URL with a path already names the API root.
        return base.isEmpty() ? "/v1/" + op.suffix() : base + "/" + op.suffix();
    }

    private static String basePath(DeploymentConfig d) {
        String p = d.baseUrl().getRawPath();
        if (p == null) {
            return "";
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /** Puts the deployment's credential and the provider's required headers on the upstream request. */
    static void credentials(HttpHeaders headers, DeploymentConfig d, MultiMap client) {
        String key = d.apiKey().map(s -> s.reveal()).orElse(null);
        switch (d.kind()) {
            case OPENAI, OPENAI_COMPATIBLE -> {
                if (key != null) {
                    headers.set("authorization", "Bearer " + key);
                }
                copy(client, headers, "openai-beta");
            }
            case AZURE_OPENAI -> {
                if (key != null) {
                    headers.set("api-key", key);
                }
            }
            case ANTHROPIC -> {
                if (key != null) {
                    headers.set("x-api-key", key);
                }
                String v = client.get("anthropic-version");
                headers.set("anthropic-version", v != null ? v : ANTHROPIC_VERSION);
                copy(client, headers, "anthropic-beta");
            }
            case GEMINI -> {
                if (key != null) {
                    headers.set("x-goog-api-key", key);
                }
            }
        }
    }

    private static void copy(MultiMap from, HttpHeaders to, String name) {
        String v = from.get(name);
        if (v != null) {
            to.set(name, v);
        }
    }
}
