package dev.tide.stream.exchange;

import dev.tide.proto.exchange.ExchangeServiceGrpc;
import dev.tide.stream.node.LocalExchange;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The exchange part of a compute node, on 127.0.0.1 with an ephemeral port: input channels by
 * (upstream actor, downstream actor) as the node keeps them, an {@link ExchangeReceiver} serving them
 * over a Netty gRPC server, and client channels to other such nodes.
 */
final class LoopbackNode implements AutoCloseable {
  final String name;
  final LocalExchange channels;
  final ExchangeReceiver receiver;
  final ExchangeConfig config;
  private final Server server;
  private final List<ManagedChannel> dialed = new ArrayList<>();

  LoopbackNode(String name, int channelCapacity, ExchangeConfig config) throws IOException {
    this(name, channelCapacity, config, null);
  }

  /** @param resolver null: every link is served by {@link #channels} */
  LoopbackNode(String name, int channelCapacity, ExchangeConfig config, ExchangeReceiver.InboxResolver resolver)
      throws IOException {
    this.name = name;
    this.config = config;
    this.channels = new LocalExchange(channelCapacity);
    ExchangeReceiver.InboxResolver r = resolver != null ? resolver : (up, down) -> channels.channel(up, down)::send;
    this.receiver = new ExchangeReceiver(r, config);
    this.server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(receiver)
        .maxInboundMessageSize(config.maxMessageBytes())
        .build()
        .start();
  }

  int port() {
    return server.getPort();
  }

  /** An async stub towards {@code other}, on a channel this node closes. */
  ExchangeServiceGrpc.ExchangeServiceStub dial(LoopbackNode other) {
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", other.port())
        .usePlaintext()
        .maxInboundMessageSize(config.maxMessageBytes())
        .build();
    dialed.add(ch);
    return ExchangeServiceGrpc.newStub(ch);
  }

  RemoteOutput open(LoopbackNode to, long up, long down) {
    return RemoteOutput.open(dial(to), to.name, up, down);
  }

  /** Stops serving at once, as a crashed node would: open links break at the transport. */
  void kill() {
    server.shutdownNow();
  }

  @Override
  public void close() throws InterruptedException {
    for (ManagedChannel ch : dialed) {
      ch.shutdownNow();
    }
    receiver.close();
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
    for (ManagedChannel ch : dialed) {
      ch.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
