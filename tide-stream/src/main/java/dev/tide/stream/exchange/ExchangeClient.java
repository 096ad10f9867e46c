package dev.tide.stream.exchange;

import dev.tide.proto.exchange.ExchangeServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The sending side of a node's exchange: one gRPC channel (one HTTP/2 connection) per peer address,
 * dialed on first use and shared by every link to that peer; each link is a stream of its own on it.
 *
 * <p>Thread-safety: safe for concurrent use.
 */
public final class ExchangeClient implements AutoCloseable {
  private final Function<String, ManagedChannel> dialer;
  private final ConcurrentHashMap<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, ExchangeServiceGrpc.ExchangeServiceStub> stubs = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param dialer opens a channel to a peer's address (as peers register with meta); it is where
   *     transport security and credentials go
   */
  public ExchangeClient(Function<String, ManagedChannel> dialer) {
    this.dialer = dialer;
  }

  /** Plaintext Netty channels to {@code host:port} addresses, accepting messages up to the configured size. */
  public static ExchangeClient plaintext(ExchangeConfig config) {
    return new ExchangeClient(address -> NettyChannelBuilder.forTarget(address)
        .usePlaintext()
        .maxInboundMessageSize(config.maxMessageBytes())
        .build());
  }

  /** Opens a link from {@code upActorId} to {@code downActorId} on the node at {@code address}; returns at once. */
  public RemoteOutput open(String address, long upActorId, long downActorId) {
    if (address == null || address.isEmpty()) {
      throw new IllegalArgumentException("exchange link actor " + upActorId + " -> actor " + downActorId
          + " has no address for the downstream actor's node; meta must send the downstream workers' addresses");
    }
    ExchangeServiceGrpc.ExchangeServiceStub stub = stubs.computeIfAbsent(address, a -> {
      if (closed) {
        throw new IllegalStateException("exchange link to " + a + " refused: the node's exchange client is closed");
      }
      ManagedChannel ch = dialer.apply(a);
      channels.put(a, ch);
      return ExchangeServiceGrpc.newStub(ch);
    });
    return RemoteOutput.open(stub, address, upActorId, downActorId);
  }

  /** Peers dialed so far. */
  public int peerCount() {
    return channels.size();
  }

  /** Shuts every channel down at once: open links break (the node is going away). */
  @Override
  public void close() {
    closed = true;
    List<ManagedChannel> all = new ArrayList<>(channels.values());
    all.forEach(ManagedChannel::shutdownNow);
    for (ManagedChannel ch : all) {
      try {
        ch.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
