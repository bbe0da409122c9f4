package dev.sluice.runtime.config;

import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the gateway listens, how much it accepts from a client and for how long.
 *
 * @param host interface to bind
 * @param port TCP port; 0 picks a free one
 * @param maxBodyBytes largest request body accepted (413 beyond)
 * @param maxHeaderBytes largest request header block accepted (431 beyond)
 * @param upstreamTimeout longest wait for a provider's response headers, and for each body chunk (504 beyond)
 * @param headerTimeout longest a new connection may take to send a whole request head (closed beyond)
 * @param bodyTimeout longest a request's body may take to arrive once its head has (408 beyond)
 * @param idleTimeout longest a kept-alive connection may wait, after an answer, for the next request's head
 * @param maxConnections client connections open at once, over all addresses (503 beyond)
 * @param maxConnectionsPerAddress client connections open at once from one remote address (503 beyond)
 * @param accessLog where the access log goes: {@code off}, {@code stdout}, or a file path
 * @param maxAnswerBytes largest whole (non-streamed) provider answer held for relaying (502 beyond)
 * @param translationBudgetBytes most bytes of whole answers held at once, over the process, to be
 *        translated (an OpenAI route on an Anthropic or Gemini deployment); at least {@code maxAnswerBytes}
 * @param translationWait longest an answer to translate waits, its provider paused, for room in that
 *        budget (503 beyond)
 * @param invalidRefundsPerMinute requests refused by the provider as invalid that a tenant is refunded
 *        the request itself for, a minute, where the provider does not count them
 */
public record ServerSettings(String host, int port, long maxBodyBytes, int maxHeaderBytes, Duration upstreamTimeout,
        Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxConnections,
        int maxConnectionsPerAddress, String accessLog, long maxAnswerBytes, long translationBudgetBytes,
        Duration translationWait, int invalidRefundsPerMinute) {

    /** Loopback only, so a fresh install is not reachable from the network until asked. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    /** 4 MiB: a long multi-turn prompt with a few inline images fits; a runaway upload does not. */
    public static final long DEFAULT_MAX_BODY_BYTES = 4L * 1024 * 1024;
    /** 16 KiB: well above what SDKs send, small enough to refuse header floods early. */
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    /** Two minutes, the longest a non-streaming completion usually takes before its first byte. */
    public static final Duration DEFAULT_UPSTREAM_TIMEOUT = Duration.ofSeconds(120);
    /** Ten seconds: an SDK sends its head in one write; only a stalled or hostile client needs longer. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** One minute for the whole body: 4 MiB at about 0.5 Mbit/s, slower than any link an SDK is on. */
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(60);
    /**
     * One minute between requests on a kept-alive connection: longer than the SDKs' own pools keep an
     * unused connection (a few seconds to a minute), shorter than a file descriptor should sit idle.
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** Ten thousand: far above what one gateway serves at once, well below the usual descriptor limits. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /** One thousand from one address, so that a single client (or a flood of silent sockets) cannot take them all. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;

    /** Off: an embedded gateway writes no file unless asked; {@code sluice serve} users set a path or stdout. */
    public static final String DEFAULT_ACCESS_LOG = "off";

    /**
     * 64 MiB: far above any chat answer, and room for an embeddings batch of 2,048 vectors of 1,536
     * floats as JSON; an answer is held whole while its usage is read, so this bounds the memory one
     * call can take.
     */
    public static final long DEFAULT_MAX_ANSWER_BYTES = 64L * 1024 * 1024;

    /**
     * 128 MiB (or {@code max_answer_bytes} where that is larger): two of the largest answers, or a
     * hundred of 1 MiB, held to be translated at once; parsing and rewriting one takes about twice
     * its size more while it lasts, so this bounds translation's heap near three times it.
     */
    public static final long DEFAULT_TRANSLATION_BUDGET_BYTES = 128L * 1024 * 1024;

    /** Thirty seconds: answers held for translation are read and rewritten in milliseconds; far below an SDK's own timeout. */
    public static final Duration DEFAULT_TRANSLATION_WAIT = Duration.ofSeconds(30);

    /** Ten a minute: a client's occasional mistakes cost it nothing; a stream of them is charged its requests. */
    public static final int DEFAULT_INVALID_REFUNDS_PER_MINUTE = 10;

    public ServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(accessLog, "accessLog");
        ConfigException.require(!accessLog.isBlank(), "access_log", "off, stdout or a file path", accessLog);
        Objects.requireNonNull(upstreamTimeout, "upstreamTimeout");
        Objects.requireNonNull(headerTimeout, "headerTimeout");
        Objects.requireNonNull(bodyTimeout, "bodyTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        ConfigException.require(port >= 0 && port <= 65535, "port", "0..65535", port);
        ConfigException.require(maxBodyBytes > 0, "max_body_bytes", "> 0", maxBodyBytes);
        ConfigException.require(maxHeaderBytes >= 1024, "max_header_bytes", ">= 1024", maxHeaderBytes);
        ConfigException.require(upstreamTimeout.isPositive(), "upstream_timeout", "> 0", upstreamTimeout);
        ConfigException.require(headerTimeout.toMillis() > 0, "header_timeout", ">= 1ms", headerTimeout);
        ConfigException.require(bodyTimeout.toMillis() > 0, "body_timeout", ">= 1ms", bodyTimeout);
        ConfigException.require(idleTimeout.toMillis() > 0, "idle_timeout", ">= 1ms", idleTimeout);
        ConfigException.require(maxAnswerBytes > 0, "max_answer_bytes", "> 0", maxAnswerBytes);
        ConfigException.require(translationBudgetBytes >= maxAnswerBytes, "translation_budget_bytes",
                ">= max_answer_bytes (" + maxAnswerBytes + ")", translationBudgetBytes);
        Objects.requireNonNull(translationWait, "translationWait");
        ConfigException.require(translationWait.toMillis() > 0, "translation_wait", ">= 1ms", translationWait);
        ConfigException.require(invalidRefundsPerMinute >= 0, "invalid_refunds_per_minute", ">= 0",
                invalidRefundsPerMinute);
        ConfigException.require(maxConnections > 0, "max_connections", "> 0", maxConnections);
        ConfigException.require(maxConnectionsPerAddress > 0, "max_connections_per_address", "> 0",
                maxConnectionsPerAddress);
    }

    /** The listener and size limits given, every client timeout and connection cap at its default. */
    public ServerSettings(String host, int port, long maxBodyBytes, int maxHeaderBytes, Duration upstreamTimeout) {
        this(host, port, maxBodyBytes, maxHeaderBytes, upstreamTimeout, DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT,
                DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, DEFAULT_ACCESS_LOG,
                DEFAULT_MAX_ANSWER_BYTES, DEFAULT_TRANSLATION_BUDGET_BYTES, DEFAULT_TRANSLATION_WAIT,
                DEFAULT_INVALID_REFUNDS_PER_MINUTE);
    }

    public static ServerSettings defaults() {
        return new ServerSettings(DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_HEADER_BYTES,
                DEFAULT_UPSTREAM_TIMEOUT);
    }

    /** A copy listening on {@code newPort}. */
    public ServerSettings withPort(int newPort) {
        return new ServerSettings(host, newPort, maxBodyBytes, maxHeaderBytes, upstreamTimeout, headerTimeout,
                bodyTimeout, idleTimeout, maxConnections, maxConnectionsPerAddress, accessLog, maxAnswerBytes,
                translationBudgetBytes, translationWait, invalidRefundsPerMinute);
    }
}
