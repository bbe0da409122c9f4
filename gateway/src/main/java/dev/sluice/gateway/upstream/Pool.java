package dev.sluice.gateway.upstream;

import io.netty.channel.ChannelFuture;
import java.util.ArrayDeque;
import java.util.Iterator;

/** Connections to one origin from one event loop: idle ones to reuse, the newest first, and calls waiting for one. */
final class Pool {

    final UpstreamClient client;
    final Origin origin;
    /** The Host header of every request to the origin. */
    private final String authority;
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    /** Connections open or being opened. */
    private int open;

    Pool(UpstreamClient client, Origin origin) {
        this.client = client;
        this.origin = origin;
        this.authority = origin.authority();
    }

    void acquire(Call call) {
        call.request.headers().set("host", authority);
        long now = System.nanoTime();
        Connection c;
        while ((c = idle.pollLast()) != null) {
            if (c.reusable(now)) {
                c.start(call);
                return;
            }
            c.close();
        }
        if (open < client.settings.maxConnectionsPerOrigin()) {
            connect(call);
        } else {
            call.waiting = true;
            waiting.addLast(call);
        }
    }

    private void connect(Call call) {
        open++;
        ChannelFuture f = client.connect(this);
        f.addListener(x -> {
            Connection c = f.channel().pipeline().get(Connection.class);
            if (f.isSuccess() && c != null) {
                if (call.cancelled()) {
                    release(c);
                } else {
                    c.start(call);
                }
            } else {
                if (c != null) {
                    c.gone();
                } else {
                    closed(null);
                }
                call.fail(f.cause() != null ? f.cause() : new java.net.ConnectException("cannot connect to " + authority));
            }
        });
    }

    /** A connection finished its call and may carry another. */
    void release(Connection c) {
        Call next;
        while ((next = waiting.pollFirst()) != null) {
            next.waiting = false;
            if (!next.cancelled()) {
                c.start(next);
                return;
            }
        }
        c.idleSince = System.nanoTime();
        idle.addLast(c);
    }

    /** A connection closed (or never opened): its place goes to a waiting call. */
    void closed(Connection c) {
        if (c != null) {
            idle.remove(c);
        }
        open--;
        Call next;
        while (open < client.settings.maxConnectionsPerOrigin() && (next = waiting.pollFirst()) != null) {
            next.waiting = false;
            if (!next.cancelled()) {
                connect(next);
            }
        }
    }

    void forget(Call call) {
        waiting.remove(call);
    }

    void closeIdleSince(long nanos) {
        for (Iterator<Connection> it = idle.iterator(); it.hasNext(); ) {
            Connection c = it.next();
            if (c.idleSince - nanos <= 0) {
                it.remove();
                c.close();
            }
        }
    }

    void failWaiters() {
        Call w;
        while ((w = waiting.pollFirst()) != null) {
            w.waiting = false;
            w.fail(new IllegalStateException("the upstream client is closed"));
        }
    }
}
