package dev.sluice.gateway.upstream;

/** Where provider calls go: one pool of connections per origin and event loop. {@code host} is a name or a bare IP literal. */
public record Origin(String host, int port, boolean tls) {

    public Origin {
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("origin " + host + ":" + port);
        }
    }

    /** The Host header's value: the port is left out when it is the scheme's default. */
    public String authority() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host; // an IPv6 literal
        return port == (tls ? 443 : 80) ? h : h + ":" + port;
    }
}
