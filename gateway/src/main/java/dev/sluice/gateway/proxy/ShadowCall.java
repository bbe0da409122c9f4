package dev.sluice.gateway.proxy;

import dev.sluice.gateway.http.TraceIds;
import dev.sluice.gateway.upstream.ResponseListener;
import dev.sluice.runtime.SluiceRuntime;
import dev.sluice.runtime.event.AttemptResult;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.buffer.Buffer;

/**
 * A rollout's shadow copy of a request on its way to the target ({@link SluiceRuntime#shadow}):
 * sent beside the request's own call, its answer read to the end and dropped, never the client's.
 * How it went (answered, refused with a 429, failed) counts in the rollout's figures for the
 * target, and the reservation on the target's buckets is settled or given back.
 */
final class ShadowCall implements ResponseListener {

    private final SluiceRuntime.ShadowCopy copy;
    private int status;

    private ShadowCall(SluiceRuntime.ShadowCopy copy) {
        this.copy = copy;
    }

    /** Sends {@code copy} of the request {@code r}, put in the target's format as {@code plan}. */
    static void send(ClientRequest r, GatewayCore core, UpstreamPlan plan, SluiceRuntime.ShadowCopy copy) {
        byte[] body = plan.bytes();
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, plan.pathAndQuery(),
                Unpooled.wrappedBuffer(body));
        HttpHeaders h = req.headers();
        h.set("content-type", "application/json");
        h.set("accept", plan.streaming() ? "text/event-stream" : "application/json");
        h.set("accept-encoding", "identity");
        h.set("traceparent", TraceIds.upstreamTraceparent(r.traceId));
        h.setInt("content-length", body.length);
        UpstreamPlan.credentials(h, copy.target(), r.req.headers());
        r.client.send(core.upstream(copy.target()).origin(), req, new ShadowCall(copy));
    }

    @Override
    public void onHead(int status, HttpHeaders headers) {
        this.status = status;
    }

    @Override
    public void onContent(Buffer chunk) {
        // Not the client's answer: dropped.
    }

    @Override
    public void onEnd() {
        copy.end(status >= 200 && status < 300 ? AttemptResult.ANSWERED
                : status == 429 ? AttemptResult.THROTTLED : AttemptResult.FAILED);
    }

    @Override
    public void onFailure(Throwable cause) {
        copy.end(AttemptResult.FAILED);
    }
}
