package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.http.ModelListings;
import java.util.Optional;

/**
 * The model catalogue: the profiles the caller's key may use, listed or one described, in the
 * shape of the family that asks ({@link ModelListings}); a profile the key cannot see is a 404.
 */
final class Catalogue {

    private Catalogue() {}

    static void answer(ClientRequest r) {
        Optional<ObjectNode> listed = ModelListings.answer(r.route, r.key, r.core.config());
        if (listed.isPresent()) {
            r.answerJson(200, listed.get());
        } else {
            r.fail(404, "model_not_found", "The model '" + r.route.pathModel().orElse("") + "' does not exist or this "
                    + "API key may not use it.", Optional.of("model"));
        }
    }
}
