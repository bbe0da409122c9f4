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
    void chunkedBesideAContentLengthIs400AndCloses() throws Exception {
        String chunked = Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n";
        RawClient.Answer a = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked
                + SMUGGLED);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.text()).contains("\"code\":\"ambiguous_framing\"").containsIgnoringCase("connection: close")
                .doesNotContain("\"object\":\"list\"").doesNotContain("chat.completion");
        assertThat(a.responses()).isEqualTo(1);
        assertThat(a.closed()).isTrue();
    }

    @Test
    void aWellFormedChunkedBodyIsServedAndTheConnectionKeptOpen() throws Exception {
        String chunked = Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n";
        RawClient.Answer a = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked);
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.responses()).isEqualTo(1);
        assertThat(a.text()).contains("chat.completion").doesNotContainIgnoringCase("connection: close");
        assertThat(a.closed()).as("kept alive").isFalse();
    }

    @Test
    void aBadChunkSizeIs400InTheRoutesShapeAndCloses() throws Exception {
        RawClient.Answer openai = send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + BODY
                + "\r\n0\r\n\r\n" + SMUGGLED);
        assertThat(openai.status()).isEqualTo(400);
        assertThat(openai.text()).contains("\"code\":\"invalid_chunked_body\"", "\"type\":\"invalid_request_error\"")
                .containsIgnoringCase("connection: close").doesNotContain("\"object\":\"list\"");
        assertThat(openai.responses()).isEqualTo(1);
        assertThat(openai.closed()).isTrue();
        // A chunk longer than its size says: the bytes after it are not a chunk size.
        RawClient.Answer anthropic = send("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: " + GatewayFixture.KEY
                + "\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
                + "\r\n\r\n5\r\n{\"model\":1}\r\n0\r\n\r\n");
        assertThat(anthropic.status()).isEqualTo(400);
        assertThat(anthropic.text()).contains("\"type\":\"error\"", "invalid_request_error", "chunked coding");
        assertThat(anthropic.closed()).isTrue();
    }

    @Test
    void theHttp2PrefaceIsAnsweredWithAGoawaySayingHttp11IsRequired() throws Exception {
        RawClient.Answer a = send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        byte[] b = a.text().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        // An empty SETTINGS frame (9 bytes of header), then GOAWAY: type 7, stream 0, last stream 0, error 0xd.
        assertThat(b.length).isGreaterThan(9 + 9 + 8);
        assertThat(b[3]).as("SETTINGS").isEqualTo((byte) 0x4);
        assertThat(b[9 + 3]).as("GOAWAY").isEqualTo((byte) 0x7);
        assertThat(java.nio.ByteBuffer.wrap(b, 9 + 9 + 4, 4).getInt()).as("HTTP_1_1_REQUIRED")
                .isEqualTo(RequestFraming.HTTP_1_1_REQUIRED);
        assertThat(a.text()).endsWith(RequestFraming.H2C_OFF).doesNotContain("501");
        assertThat(a.closed()).isTrue();
    }

    @Test
    void aRequestLineNamingHttp2Is505InTheRoutesShape() throws Exception {
        RawClient.Answer a = send("GET /v1/models HTTP/2.0\r\nHost: x\r\n" + AUTH + "\r\n");
        assertThat(a.status()).isEqualTo(505);
        assertThat(a.text()).contains("\"code\":\"http_version_not_supported\"", "h2c");
        assertThat(a.responses()).isEqualTo(1);
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
