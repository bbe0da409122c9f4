package dev.sluice.gateway.upstream;

/** One call in flight, as its sender steers it. Called on the event loop that sent it. */
public interface UpstreamCallHandle {

    /** Whether the request was handed to a connection: it may have reached the provider. */
    boolean sent();

    /** Stops reading the response until {@link #resume}: the client is behind. */
    void pause();

    /** Reads the response again. */
    void resume();

    /** Abandons the call: the listener hears nothing more, and an unfinished response's connection is closed. */
    void cancel();
}
