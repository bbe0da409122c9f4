package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests whose framing or target is broken or ambiguous, sent as raw bytes: each gets one 400
 * in its route's error shape, and where the body's end is ambiguous the connection is closed so
 * that nothing in it is read as a next request (RFC 9112 sections 3.2, 6.1, 6.3).
 */
class HostileFramingTest {

    @RegisterExtension
    static final GatewayFixture f = new GatewayFixture();

    static final String AUTH = "Authorization: Bearer " + GatewayFixture.KEY + "\r\n";
    static final String BODY = "{\"model\":\"chat\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    static final String SMUGGLED = "GET /v1/models HTTP/1.1\r\nHost: x\r\n" + AUTH + "\r\n";

    private RawClient.Answer send(String request) throws Exception {
        return RawClient.exchange(f.gateway.port(), request, 5_000);
    }

    @Test
    void aRequestSmuggledBehindAnUnknownTransferCodingIsNeverServed() throws Exception {
        RawClient.Answer a = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n" + SMUGGLED);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.text()).contains("\"code\":\"unsupported_transfer_encoding\"").doesNotContain("\"object\":\"list\"");
        assertThat(a.responses()).isEqualTo(1);
        assertThat(a.closed()).isTrue();
    }

    @Test
    void anUnknownTransferCodingBesideAContentLengthIs400AndCloses() throws Exception {
        RawClient.Answer a = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: gzip\r\nContent-Length: " + BODY.length()
                + "\r\n\r\n" + BODY);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.text()).contains("unsupported_transfer_encoding").containsIgnoringCase("connection: close");
        assertThat(a.closed()).isTrue();
    }

    @Test
    void chunkedBesideAContentLengthIsAnsweredOnceAndTheConnectionClosed() throws Exception {
        String chunked = Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n";
        RawClient.Answer a = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked
                + SMUGGLED);
        assertThat(a.responses()).isEqualTo(1);
        assertThat(a.text()).containsIgnoringCase("connection: close").doesNotContain("\"object\":\"list\"");
        assertThat(a.closed()).isTrue();
    }

    @Test
    void http11WithoutHostOrWithTwoIs400AndCloses() throws Exception {
        RawClient.Answer none = send("GET /v1/models HTTP/1.1\r\n" + AUTH + "\r\n");
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.text()).contains("\"code\":\"invalid_host\"");
        assertThat(none.closed()).isTrue();
        RawClient.Answer two = send("GET /v1/models HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + AUTH + "\r\n");
        assertThat(two.status()).isEqualTo(400);
        assertThat(two.text()).contains("\"code\":\"invalid_host\"");
    }

    @Test
    void aBrokenEscapeInAGeminiPathIs400InGeminisShape() throws Exception {
        for (String model : new String[] {"%zz", "gemini%", "%C3%28", "gemini%2"}) {
            RawClient.Answer a = send("POST /v1beta/models/" + model + ":generateContent HTTP/1.1\r\nHost: x\r\n"
                    + "x-goog-api-key: " + GatewayFixture.KEY + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
            assertThat(a.status()).as(model).isEqualTo(400);
            assertThat(a.text()).as(model).contains("\"status\":\"INVALID_ARGUMENT\"", "\"reason\":\"invalid_path\"");
            assertThat(a.responses()).isEqualTo(1);
        }
    }

    @Test
    void aBrokenEscapeInTheQueryIs400() throws Exception {
        RawClient.Answer a = send("POST /v1/chat/completions?x=%zz HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nContent-Length: " + BODY.length() + "\r\nConnection: close\r\n\r\n"
                + BODY);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.text()).contains("\"code\":\"invalid_path\"");
    }

    @Test
    void aRawNonAsciiByteInThePathIs400() throws Exception {
        RawClient.Answer a = send("GET /v1/mod\u00e9ls HTTP/1.1\r\nHost: x\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.text()).contains("\"code\":\"invalid_path\"");
    }

    @Test
    void anH2cUpgradeIsNotTakenTheRequestIsServedAsHttp11() throws Exception {
        RawClient.Answer a = send("GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(a.text()).startsWith("HTTP/1.1 200").doesNotContain("101 Switching");
    }
}
