package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The model catalogue: the profiles the caller's key may use, in the OpenAI list shape. */
final class Catalogue {

    private Catalogue() {}

    static void models(ClientRequest r) {
        ObjectNode list = ProxyJson.MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (String p : r.key.profiles()) {
            data.addObject().put("id", p).put("object", "model").put("created", 0).put("owned_by", "sluice");
        }
        r.answerJson(200, list);
    }
}
