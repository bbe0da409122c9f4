package dev.sluice.gateway.proxy;

import dev.sluice.signal.Headers;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.Map;

/** A provider response's headers as the signal normaliser reads them, names scannable without copying. */
final class SignalHeaders implements Headers {

    private final HttpHeaders headers;

    SignalHeaders(HttpHeaders headers) {
        this.headers = headers;
    }

    @Override
    public List<String> all(String name) {
        return headers.getAll(name);
    }

    @Override
    public boolean anyNameStartsWith(List<String> lowerCasePrefixes) {
        for (Map.Entry<String, String> header : headers) {
            String name = header.getKey();
            for (String prefix : lowerCasePrefixes) {
                if (name.regionMatches(true, 0, prefix, 0, prefix.length())) {
                    return true;
                }
            }
        }
        return false;
    }
}
