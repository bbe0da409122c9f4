package dev.sluice.signal;

import static dev.sluice.signal.Responses.normalise;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatusMappingTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(textBlock = """
            200, SUCCESS,      ok,                false
            201, SUCCESS,      ok,                false
            299, SUCCESS,      ok,                false
            429, RATE_LIMITED, rate_limited,      true
            529, OVERLOADED,   overloaded,        true
            503, OVERLOADED,   overloaded,        true
            500, SERVER_ERROR, server_error,      true
            502, SERVER_ERROR, server_error,      true
            599, SERVER_ERROR, server_error,      true
            408, TIMEOUT,      timeout,           true
            504, TIMEOUT,      timeout,           true
            400, CLIENT_ERROR, client_error,      false
            401, CLIENT_ERROR, client_error,      false
            404, CLIENT_ERROR, client_error,      false
            409, CLIENT_ERROR, conflict,          true
            413, CLIENT_ERROR, request_too_large, false
            499, CLIENT_ERROR, client_error,      false
            100, SERVER_ERROR, unexpected_status, false
            302, SERVER_ERROR, unexpected_status, false
            0,   SERVER_ERROR, unexpected_status, false
            -1,  SERVER_ERROR, unexpected_status, false
            600, SERVER_ERROR, unexpected_status, false
            """)
    void mapsEveryStatus(int status, SignalStatus expected, String reason, boolean retryable) {
        for (ProviderKind kind : ProviderKind.values()) {
            ProviderSignal signal = normalise(kind, status, "");
            assertThat(signal.status()).isEqualTo(expected);
            assertThat(signal.httpStatus()).isEqualTo(status);
            assertThat(signal.reason()).isEqualTo(reason);
            assertThat(signal.retryable()).isEqualTo(retryable);
            assertThat(signal.limitHit()).isEmpty();
            assertThat(signal.retryAfterMillis()).isEmpty();
            assertThat(signal.observations()).isEmpty();
            assertThat(signal.malformedFields()).isZero();
        }
    }

    @Test
    void successBodiesAreNotRead() {
        ProviderSignal signal = normalise(ProviderKind.OPENAI, 200, "{\"broken");
        assertThat(signal.malformedFields()).isZero();
    }

    @Test
    void noResponseSignals() {
        assertThat(SignalNormaliser.timeout()).isEqualTo(new ProviderSignal(SignalStatus.TIMEOUT, 0, Optional.empty(),
                OptionalLong.empty(), true, List.of(), "timeout", 0));
        assertThat(SignalNormaliser.connectionFailed()).isEqualTo(new ProviderSignal(SignalStatus.CONNECTION_FAILED, 0,
                Optional.empty(), OptionalLong.empty(), true, List.of(), "connection_failed", 0));
    }

    @Test
    void valuesValidateTheirInvariants() {
        assertThatThrownBy(() -> new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.empty(),
                OptionalLong.of(-5), true, List.of(), "rate_limited", 0))
                .hasMessage("retryAfterMillis: -5 (expected: 0..86400000)");
        assertThatThrownBy(() -> new ProviderSignal(SignalStatus.RATE_LIMITED, 429, Optional.empty(),
                OptionalLong.empty(), true, List.of(), " ", 0))
                .hasMessageStartingWith("reason: blank");
        assertThatThrownBy(() -> new LimitObservation(LimitKind.TOKENS, OptionalLong.of(-1), OptionalLong.empty(),
                OptionalLong.empty(), "x")).hasMessage("limit: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new LimitObservation(LimitKind.TOKENS, OptionalLong.empty(), OptionalLong.empty(),
                OptionalLong.of(86_400_001), "x")).hasMessage("resetAfterMillis: 86400001 (expected: <= 86400000)");
    }

    @Test
    void nullArgumentsAreProgrammingErrors() {
        SignalNormaliser normaliser = new SignalNormaliser(ProviderKind.OPENAI);
        assertThatThrownBy(() -> normaliser.normalise(429, null, "", 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> normaliser.normalise(429, Headers.empty(), null, 0))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new SignalNormaliser(null)).isInstanceOf(NullPointerException.class);
    }
}
