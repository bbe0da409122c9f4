package dev.sluice.gateway.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.config.DeploymentConfig;
import dev.sluice.runtime.config.DeploymentKind;
import dev.sluice.runtime.config.KeyConfig;
import dev.sluice.runtime.config.ProfileConfig;
import dev.sluice.runtime.config.SluiceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The model catalogue a key sees, in each family's shape: OpenAI {@code GET /v1/models}, Anthropic
 * {@code GET /v1/models} (asked with Anthropic headers), Gemini {@code models.list} and
 * {@code models.get} under {@code /v1beta} or {@code /v1}. The ids are the key's profile names,
 * which is what a client writes in {@code model}. OpenAI lists every profile the key may use, since
 * {@code /v1/chat/completions} reaches them all; Anthropic and Gemini list only the profiles their
 * native routes serve (those on deployments of their kind). Answered from configuration alone:
 * never metered, never sent upstream.
 */
public final class ModelListings {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Gemini's methods of a generating model, as {@code supportedGenerationMethods} lists them. */
    static final List<String> GEMINI_GENERATE_METHODS = List.of("generateContent", "streamGenerateContent", "countTokens");
    static final List<String> GEMINI_EMBED_METHODS = List.of("embedContent", "batchEmbedContents");

    private ModelListings() {}

    /**
     * The answer to a catalogue route, or empty when it names a model the key cannot see (404).
     *
     * @throws IllegalArgumentException when {@code route} is not a catalogue route
     */
    public static Optional<ObjectNode> answer(Route route, KeyConfig key, SluiceConfig config) {
        List<ProfileConfig> visible = visible(route.operation().family(), key, config);
        return switch (route.operation()) {
            case OPENAI_MODELS -> Optional.of(openAiList(visible));
            case ANTHROPIC_MODELS -> Optional.of(anthropicList(visible));
            case GEMINI_MODELS -> Optional.of(geminiList(visible));
            case OPENAI_MODEL -> find(visible, route).map(ModelListings::openAi);
            case ANTHROPIC_MODEL -> find(visible, route).map(ModelListings::anthropic);
            case GEMINI_MODEL -> find(visible, route).map(ModelListings::gemini);
            default -> throw new IllegalArgumentException("route: " + route.operation() + " (expected: a catalogue route)");
        };
    }

    private static List<ProfileConfig> visible(ApiFamily family, KeyConfig key, SluiceConfig config) {
        List<ProfileConfig> out = new ArrayList<>();
        for (String id : key.profiles()) {
            ProfileConfig p = config.profiles().get(id);
            DeploymentConfig d = p == null ? null : config.deployments().get(p.deployment());
            if (d != null && servedNatively(family, d.kind())) {
                out.add(p);
            }
        }
        return out;
    }

    private static boolean servedNatively(ApiFamily family, DeploymentKind kind) {
        return switch (family) {
            case OPENAI -> true;
            case ANTHROPIC -> kind == DeploymentKind.ANTHROPIC;
            case GEMINI -> kind == DeploymentKind.GEMINI;
        };
    }

    /** The profile a single-model route names; Gemini's may carry the {@code models/} prefix. */
    private static Optional<ProfileConfig> find(List<ProfileConfig> visible, Route route) {
        String name = route.pathModel().orElse("");
        String id = name.startsWith("models/") ? name.substring("models/".length()) : name;
        return visible.stream().filter(p -> p.id().equals(id)).findFirst();
    }

    private static ObjectNode openAiList(List<ProfileConfig> profiles) {
        ObjectNode list = NODES.objectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        profiles.forEach(p -> data.add(openAi(p)));
        return list;
    }

    private static ObjectNode openAi(ProfileConfig p) {
        return NODES.objectNode().put("id", p.id()).put("object", "model").put("created", 0).put("owned_by", "sluice");
    }

    private static ObjectNode anthropicList(List<ProfileConfig> profiles) {
        ObjectNode list = NODES.objectNode();
        ArrayNode data = list.putArray("data");
        profiles.forEach(p -> data.add(anthropic(p)));
        list.put("has_more", false);
        if (profiles.isEmpty()) {
            list.putNull("first_id").putNull("last_id");
        } else {
            list.put("first_id", profiles.getFirst().id()).put("last_id", profiles.getLast().id());
        }
        return list;
    }

    private static ObjectNode anthropic(ProfileConfig p) {
        return NODES.objectNode().put("type", "model").put("id", p.id()).put("display_name", p.id() + " (" + p.model() + ")")
                .put("created_at", "1970-01-01T00:00:00Z");
    }

    private static ObjectNode geminiList(List<ProfileConfig> profiles) {
        ObjectNode list = NODES.objectNode();
        ArrayNode models = list.putArray("models");
        profiles.forEach(p -> models.add(gemini(p)));
        return list;
    }

    private static ObjectNode gemini(ProfileConfig p) {
        ObjectNode m = NODES.objectNode().put("name", "models/" + p.id()).put("baseModelId", p.id()).put("version", "sluice")
                .put("displayName", p.id()).put("description", "Sluice profile " + p.id() + ", served by " + p.model());
        boolean embedding = p.task() == ProfileConfig.Task.EMBEDDING;
        ArrayNode methods = m.putArray("supportedGenerationMethods");
        (embedding ? GEMINI_EMBED_METHODS : GEMINI_GENERATE_METHODS).forEach(methods::add);
        return m;
    }
}
