package dev.sluice.gateway.upstream;

/** The provider's answer is not HTTP the client can read. */
public final class UpstreamProtocolException extends java.io.IOException {

    UpstreamProtocolException(Throwable cause) {
        super("the provider's answer is not valid HTTP: " + cause.getMessage(), cause);
    }
}
