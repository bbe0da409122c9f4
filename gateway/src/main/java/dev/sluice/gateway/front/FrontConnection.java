package dev.sluice.gateway.front;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Handler;
import io.vertx.core.internal.ContextInternal;
import java.util.ArrayDeque;

/**
 * One client connection on its event loop: decoded messages in, one {@link ClientRequest} at a
 * time. A request is current from its head until both its body has been read and its response
 * has ended; what a pipelining client sends meanwhile waits, with reading paused, until then.
 */
final class FrontConnection extends ChannelInboundHandlerAdapter {

    private final FrontServer server;
    final ContextInternal context;
    private final Handler<ClientRequest> handler;
    Channel channel;
    private ClientRequest current;
    private ArrayDeque<Object> waiting;
    private boolean resuming;
    private boolean closeWhenIdle;

    FrontConnection(FrontServer server, ContextInternal context, Handler<ClientRequest> handler) {
        this.server = server;
        this.context = context;
        this.handler = handler;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        server.opened(this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ContextInternal previous = context.beginDispatch();
        try {
            read(msg);
        } finally {
            context.endDispatch(previous);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (channel.isWritable() && current != null) {
            ContextInternal previous = context.beginDispatch();
            try {
                current.response().drained();
            } finally {
                context.endDispatch(previous);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        server.closed(this);
        if (waiting != null) {
            waiting.forEach(ReferenceCountUtil::release);
            waiting = null;
        }
        ClientRequest c = current;
        current = null;
        if (c != null) {
            ContextInternal previous = context.beginDispatch();
            try {
                c.connectionClosed();
            } finally {
                context.endDispatch(previous);
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset or broken socket: closing tells the request in flight that its client is gone.
        ctx.close();
    }

    private void read(Object msg) {
        if (waiting != null) {
            waiting.add(msg);
            return;
        }
        if (msg instanceof HttpRequest head) {
            if (current != null) {
                waiting = new ArrayDeque<>();
                waiting.add(msg);
                channel.config().setAutoRead(false);
                return;
            }
            current = new ClientRequest(this, head);
            handler.handle(current);
        }
        // Not else: a request the decoder could not read comes as one message, head and end together.
        if (msg instanceof HttpContent content) {
            try {
                ClientRequest c = current;
                if (c != null) {
                    c.content(content.content(), content instanceof LastHttpContent);
                }
            } finally {
                content.release();
            }
        }
    }

    /** {@code request} has been read whole and answered; the connection goes on with the next one. */
    void ended(ClientRequest request) {
        if (request != current) {
            return;
        }
        current = null;
        if (closeWhenIdle) {
            channel.close();
            return;
        }
        if (waiting != null && !resuming) {
            resumeWaiting();
        }
    }

    private void resumeWaiting() {
        ArrayDeque<Object> q = waiting;
        waiting = null;
        resuming = true;
        try {
            while (!q.isEmpty() && channel.isActive() && !(current != null && q.peek() instanceof HttpRequest)) {
                read(q.poll());
            }
        } finally {
            resuming = false;
        }
        if (!channel.isActive()) {
            q.forEach(ReferenceCountUtil::release);
        } else if (q.isEmpty()) {
            channel.config().setAutoRead(true);
        } else {
            waiting = q;
        }
    }

    /** Shutting down: closes now if no request is in flight, else once it has ended. */
    void closeWhenIdle() {
        channel.eventLoop().execute(() -> {
            closeWhenIdle = true;
            if (current == null) {
                channel.close();
            }
        });
    }

    /** Whether the connection closes after the answer in flight (the server is shutting down). */
    boolean closing() {
        return closeWhenIdle;
    }

    void closeNow() {
        channel.close();
    }
}
