package dev.sluice.runtime;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;

/**
 * The smallest configuration a request can travel: one OpenAI deployment {@code oa}, one profile
 * {@code chat} on it, and one key {@code main} of {@code acme-corp / acme / search}; each test
 * says only what it varies.
 */
public final class OneRouteConfig {

    private OneRouteConfig() {}

    /**
     * @param deployment the rest of the deployment's entry after its kind and URL, such as {@code limits: { rpm: 60 }}
     * @param profile the rest of the profile's entry after its deployment and model, or empty
     * @param secret the key's secret
     */
    public static SluiceConfig of(String deployment, String profile, String secret) {
        return ConfigLoader.parse("""
                deployments:
                  oa: { kind: openai, base_url: "http://127.0.0.1:1", %s }
                profiles:
                  chat: { deployment: oa, model: gpt-4o-mini%s }
                orgs:
                  acme-corp:
                    tenants:
                      acme:
                        teams:
                          search:
                            keys:
                              main: { secret: "%s" }
                """.formatted(deployment, profile.isEmpty() ? "" : ", " + profile, secret), "one-route.yaml",
                name -> null);
    }
}
