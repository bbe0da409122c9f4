package dev.sluice.gateway.translate;

/**
 * A provider answer that is not what its format promises (not JSON, not a message, an SSE line
 * beyond the size limit). The server treats it as a bad upstream (HTTP 502).
 */
public final class UpstreamFormatException extends RuntimeException {

    /** @param message what was wrong, without echoing the upstream body */
    public UpstreamFormatException(String message) {
        super(message);
    }
}
