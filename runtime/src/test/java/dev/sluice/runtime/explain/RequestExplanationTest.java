package dev.sluice.runtime.explain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The words of an explanation, one rule per kind of decision, with exact numbers. */
class RequestExplanationTest {

    @Test
    void aLocalRefusalNamesTheBucketAndTheWaitAgainstTheBudget() {
        var e = Requests.refusedByTenantRpm(1);
        assertThat(RequestExplanation.reason(e)).isEqualTo("refused: tenant:acme rpm [tenant_rpm_exhausted]");
        assertThat(RequestExplanation.sentence(e)).isEqualTo("This interactive request from acme/x (key k) for chat was "
                + "refused at once because tenant:acme had too little rpm (a wait of 1200 ms predicted, 300 ms allowed "
                + "by its class).");
    }

    @Test
    void aWaitNamesTheWindowTheReserveTheDeadlineAndTheRetry() {
        var e = Requests.waitedThenRetried(2);
        assertThat(RequestExplanation.retries(e)).isEqualTo(1);
        assertThat(RequestExplanation.reason(e)).isEqualTo("answered after waiting 850 ms on deployment:east input_tpm "
                + "(1s), 1 retry");
        assertThat(RequestExplanation.sentence(e)).isEqualTo("This interactive request from acme/x (key k) for chat "
                + "waited 850 ms because deployment:east had too little input_tpm in its 1s window, part of it held back "
                + "for a higher class (a wait of 800 ms predicted, 4000 ms allowed by its deadline), then answered 200 by "
                + "east. The gateway retried once after a provider 429. Estimated 100 input and 50 output tokens; the "
                + "provider reported 90 and 60.");
    }

    @Test
    void anAnswerAtOnceSaysSoWithTheTokens() {
        var e = Requests.answered(3);
        assertThat(RequestExplanation.reason(e)).isEqualTo("answered");
        assertThat(RequestExplanation.sentence(e)).isEqualTo("This interactive request from acme/x (key k) for chat was "
                + "admitted at once, then answered 200 by east. Estimated 100 input and 50 output tokens; the provider "
                + "reported 90 and 60.");
    }

    @Test
    void filtersAreNamedOnTheWire() {
        assertThat(RequestExplanation.Filter.byWireName("rejected")).hasValue(RequestExplanation.Filter.REJECTED);
        assertThat(RequestExplanation.Filter.byWireName("slow")).hasValue(RequestExplanation.Filter.SLOW);
        assertThat(RequestExplanation.Filter.byWireName("late")).isEqualTo(Optional.empty());
    }
}
