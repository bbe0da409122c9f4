package dev.sluice.signal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link ProviderSignal#quotaOwner}: the provider's identifier of a quota shared above one
 * deployment, read from a 429's message, so a configured provider scope can claim it.
 */
class QuotaOwnerTest {

    private static ProviderSignal openAi(int status, String message) {
        return new SignalNormaliser(ProviderKind.OPENAI).normalise(status, Headers.empty(),
                "{\"error\":{\"message\":\"" + message + "\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}", 0);
    }

    @Test
    void anOpenAi429NamesItsOrganisation() {
        ProviderSignal s = openAi(429, "Rate limit reached for gpt-4o in organization org-abc123 on tokens per min (TPM): "
                + "Limit 10000, Used 9524, Requested 497. Please try again in 125ms.");

        assertThat(s.quotaOwner()).contains("org-abc123");
    }

    @Test
    void anOpenAi429NamesItsProject() {
        assertThat(openAi(429, "Rate limit reached for gpt-4o in project proj_x7 on requests per min (RPM): Limit 3")
                .quotaOwner()).contains("proj_x7");
    }

    @Test
    void anAnthropic429NamesItsOrganisationInParentheses() {
        ProviderSignal s = new SignalNormaliser(ProviderKind.ANTHROPIC).normalise(429, Headers.empty(),
                "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed "
                        + "the rate limit for your organization (4f1c-9a) of 40,000 input tokens per minute.\"}}", 0);

        assertThat(s.quotaOwner()).contains("4f1c-9a");
    }

    @Test
    void aMessageNamingNoQuotaAndAnErrorThatIsNoRefusalNameNone() {
        assertThat(openAi(429, "Rate limit exceeded. Please try again later.").quotaOwner()).isEmpty();
        assertThat(openAi(500, "The server had an error in organization org-abc123 on it").quotaOwner()).isEmpty();
    }
}
