package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.ServerSettings;
import io.vertx.core.http.HttpServerOptions;
import org.junit.jupiter.api.Test;

class GatewayVerticleTest {

    @Test
    void theListenerOffersNoWebSocketCompressionSoNoConnectionCarriesItsHandler() {
        HttpServerOptions options = GatewayVerticle.serverOptions(ServerSettings.defaults(), 8080);
        assertThat(options.getPerFrameWebSocketCompressionSupported()).isFalse();
        assertThat(options.getPerMessageWebSocketCompressionSupported()).isFalse();
        assertThat(options.isCompressionSupported()).isFalse();
        assertThat(options.isTcpNoDelay()).isTrue();
        assertThat(options.isHandle100ContinueAutomatically()).isTrue();
        assertThat(options.getMaxHeaderSize()).isEqualTo(ServerSettings.defaults().maxHeaderBytes());
    }

    @Test
    void http2OverCleartextIsOffSoTheClientPortSpeaksHttp11Alone() {
        assertThat(GatewayVerticle.serverOptions(ServerSettings.defaults(), 8080).isHttp2ClearTextEnabled()).isFalse();
    }
}
