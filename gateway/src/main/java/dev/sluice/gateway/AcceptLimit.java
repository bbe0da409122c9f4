package dev.sluice.gateway;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.internal.SocketUtils;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * The transport of a gateway's own Vert.x: Vert.x's NIO transport, whose listeners close a socket
 * beyond {@link ConnectionCaps#acceptCeiling} on the acceptor thread, as they accept it.
 *
 * <p>Why on the acceptor: the caps are counted in {@link ClientConnections} on the event loop a
 * connection is handed to, and the acceptor hands connections over much faster than a loop sets
 * them up: a flood of 600 silent sockets under a limit of 512 descriptors took the process to its
 * limit before the loops had closed those beyond the caps. Counted here, the client sockets open at
 * once never exceed the ceiling, and one beyond it costs an accept and a close.
 *
 * <p>Why the time-zone rules are loaded at once: a listener that meets the descriptor limit anyway
 * (taken by something else) gets {@code EMFILE} from accept; Netty pauses accepting for a second and
 * logs a warning. The first warning of the process formats a time, which loads the time-zone rules
 * from a file, which fails for want of a descriptor: an {@link ExceptionInInitializerError} that
 * ended the acceptor's thread, so the listener never accepted again. Loaded before, the pause passes
 * and the listener accepts again.
 */
final class AcceptLimit implements io.vertx.core.transport.Transport {

    /** Sockets beyond the ceiling closed in one read of the listener, before it lets the loop do other work. */
    static final int CLOSED_PER_READ = 64;

    private final io.vertx.core.spi.transport.Transport nio = io.vertx.core.transport.Transport.NIO.implementation();
    private final Spi spi = new Spi();
    /** Every transport's caps before {@link #limit}: nothing is closed at accept. */
    private volatile ConnectionCaps caps = new ConnectionCaps(Integer.MAX_VALUE / 2, Integer.MAX_VALUE);

    AcceptLimit() {
        ZoneId.systemDefault().getRules();
    }

    /** From now on, sockets beyond {@code c}'s ceiling are closed as they are accepted. */
    void limit(ConnectionCaps c) {
        this.caps = c;
    }

    @Override
    public String name() {
        return "nio";
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return nio.unavailabilityCause();
    }

    @Override
    public io.vertx.core.spi.transport.Transport implementation() {
        return spi;
    }

    /** A listener that counts the sockets it accepts under the caps and closes those beyond them. */
    private final class LimitedServerChannel extends NioServerSocketChannel {

        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            ConnectionCaps c = caps;
            for (int i = 0; !c.tryAccept(); i++) {
                if (i == CLOSED_PER_READ) {
                    return 0; // the selector wakes the listener again at once: the others get their turn first
                }
                SocketChannel beyond = SocketUtils.accept(javaChannel());
                if (beyond == null) {
                    return 0;
                }
                try {
                    beyond.close();
                } catch (IOException e) {
                    // closing a socket never used: nothing more can be done with it
                }
            }
            int read;
            try {
                read = super.doReadMessages(buf);
            } catch (Throwable t) {
                c.acceptedClosed();
                throw t;
            }
            if (read == 0) {
                c.acceptedClosed();
                return 0;
            }
            ((Channel) buf.get(buf.size() - 1)).closeFuture().addListener(f -> c.acceptedClosed());
            return read;
        }
    }

    /** Vert.x's NIO transport with {@link LimitedServerChannel} for TCP listeners. */
    private final class Spi implements io.vertx.core.spi.transport.Transport {

        @Override
        public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
            return domainSocket ? nio.serverChannelFactory(true) : LimitedServerChannel::new;
        }

        @Override
        public boolean supportsDomainSockets() {
            return nio.supportsDomainSockets();
        }

        @Override
        public boolean supportFileRegion() {
            return nio.supportFileRegion();
        }

        @Override
        public boolean isAvailable() {
            return nio.isAvailable();
        }

        @Override
        public Throwable unavailabilityCause() {
            return nio.unavailabilityCause();
        }

        @Override
        public java.net.SocketAddress convert(SocketAddress address) {
            return nio.convert(address);
        }

        @Override
        public SocketAddress convert(java.net.SocketAddress address) {
            return nio.convert(address);
        }

        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return nio.ioHandlerFactory();
        }

        @Override
        public EventLoopGroup eventLoopGroup(int type, int threads, ThreadFactory factory, int ioRatio) {
            return nio.eventLoopGroup(type, threads, factory, ioRatio);
        }

        @Override
        public DatagramChannel datagramChannel() {
            return nio.datagramChannel();
        }

        @Override
        @SuppressWarnings("deprecation") // the interface Vert.x 5.0 asks for still names Netty's deprecated type
        public DatagramChannel datagramChannel(io.netty.channel.socket.InternetProtocolFamily family) {
            return nio.datagramChannel(family);
        }

        @Override
        public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
            return nio.channelFactory(domainSocket);
        }

        @Override
        public void configure(DatagramChannel channel, DatagramSocketOptions options) {
            nio.configure(channel, options);
        }

        @Override
        public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket,
                io.netty.bootstrap.Bootstrap bootstrap) {
            nio.configure(options, connectTimeout, domainSocket, bootstrap);
        }

        @Override
        public void configure(NetServerOptions options, boolean domainSocket, io.netty.bootstrap.ServerBootstrap bootstrap) {
            nio.configure(options, domainSocket, bootstrap);
        }
    }
}
