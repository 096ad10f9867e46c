package dev.tide.cluster;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.config.Durations;
import dev.tide.common.time.Clock;
import dev.tide.meta.MetaOptions;
import dev.tide.proto.stream.MetaServiceGrpc;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.exchange.ExchangeClient;
import dev.tide.stream.exchange.ExchangeConfig;
import dev.tide.stream.node.ComputeNode;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compute process: a compute node serving its stream service on {@code compute.listen},
 * registered with meta at {@code compute.meta} and sending heartbeats. Reads and writes state in the
 * object store the config names, which must be the one meta uses.
 */
public final class ComputeServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeServer.class);
  private final ComputeNode node;
  private final Server server;
  private final ManagedChannel metaChannel;
  private final ComputeMembership membership;

  private ComputeServer(ComputeNode node, Server server, ManagedChannel metaChannel, ComputeMembership membership) {
    this.node = node;
    this.server = server;
    this.metaChannel = metaChannel;
    this.membership = membership;
  }

  /**
   * Starts a compute node as {@code config} says and registers it with meta.
   *
   * @throws IllegalArgumentException for bad options
   * @throws IllegalStateException when the port cannot be bound, or meta cannot be reached or refuses
   */
  public static ComputeServer start(Config config, Optional<ClusterToken> token, Clock clock) {
    Endpoint listen = Endpoint.parse(config.get(ProcessOptions.COMPUTE_LISTEN), "127.0.0.1:0");
    Endpoint metaAt = Endpoint.parse(config.get(ProcessOptions.COMPUTE_META), "127.0.0.1:5690");
    InetSocketAddress bind = listen.socketAddress();
    if (bind.isUnresolved()) {
      throw new IllegalArgumentException("compute.listen host '" + listen.host() + "' does not resolve");
    }
    ClusterToken.requireForBind(token, bind.getAddress(), "compute");
    int slots = config.get(ProcessOptions.COMPUTE_SLOTS);
    ManagedChannel metaChannel = Dial.to(metaAt.toString(), token).build();
    MetaServiceGrpc.MetaServiceBlockingStub metaStub = MetaServiceGrpc.newBlockingStub(metaChannel);
    ExchangeConfig exchange = ExchangeConfig.of(config);
    ExchangeClient links = new ExchangeClient(address -> Dial.to(address, token).maxInboundMessageSize(exchange.maxMessageBytes()).build());
    ComputeNode node = new ComputeNode("compute@" + listen.host(), metaStub, ProcessOptions.objectStore(config),
        new BlockCache(256L << 20), links, exchange, clock);
    NettyServerBuilder sb = NettyServerBuilder.forAddress(bind).maxInboundMessageSize(exchange.maxMessageBytes());
    for (io.grpc.ServerServiceDefinition def : java.util.List.of(node.bindService(), node.exchangeService().bindService())) {
      sb.addService(token.map(t -> ServerInterceptors.intercept(def, t.interceptor())).orElse(def));
    }
    Server server;
    try {
      server = MetaServer.bindOrExplain(sb.build(), "compute", listen, "compute.listen (--listen)");
    } catch (RuntimeException e) {
      metaChannel.shutdownNow();
      throw e;
    }
    String advertised = new Endpoint(listen.host(), server.getPort()).toString();
    try {
      ComputeMembership membership = ComputeMembership.join(node, metaStub, advertised, slots,
          config.get(ProcessOptions.COMPUTE_RESOURCE_ID), config.get(MetaOptions.HEARTBEAT_INTERVAL), config.get(ProcessOptions.COMPUTE_REGISTER_TIMEOUT),
          server::shutdown); // drained and told to leave: awaitTermination returns and the process exits 0
      LOG.info("compute node serving on {} with {} slots, worker {} of meta at {}", advertised, slots, node.workerId(), metaAt);
      return new ComputeServer(node, server, metaChannel, membership);
    } catch (StatusRuntimeException | IllegalStateException e) {
      server.shutdownNow();
      node.shutdown();
      metaChannel.shutdownNow();
      if (e instanceof StatusRuntimeException s) {
        throw new IllegalStateException(registerFailure(s, metaAt, config.get(ProcessOptions.COMPUTE_REGISTER_TIMEOUT)), e);
      }
      throw e;
    }
  }

  private static String registerFailure(StatusRuntimeException e, Endpoint metaAt, Duration timeout) {
    Status s = e.getStatus();
    return switch (s.getCode()) {
      case UNAUTHENTICATED -> "meta at " + metaAt + " refused the registration: " + s.getDescription();
      case DEADLINE_EXCEEDED, UNAVAILABLE -> "cannot reach meta at " + metaAt + " within " + Durations.format(timeout)
          + "; check compute.meta (--meta) and that meta is running";
      default -> "meta at " + metaAt + " refused the registration: " + s;
    };
  }

  public ComputeNode node() {
    return node;
  }

  public int port() {
    return server.getPort();
  }

  /** Waits until the server stops: closed, or told to leave after a drain ({@link #left}). */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Stops gracefully (SIGTERM): the node is drained, so its actors migrate off online and no
   * recovery runs, then it stops. When the drain cannot finish within {@code timeout} (meta refuses
   * it for the last schedulable node, or cannot be reached), it stops anyway and meta recovers its
   * actors as after a crash.
   *
   * @return whether the node left drained
   */
  public boolean shutdownGracefully(Duration timeout) {
    boolean drained = membership.leave(timeout);
    if (!drained) {
      LOG.warn("worker {} stops without a finished drain: meta recovers its actors onto the other nodes", node.workerId());
    }
    close();
    return drained;
  }

  /** True once meta told this drained node to leave. */
  public boolean left() {
    return membership.left();
  }

  @Override
  public void close() {
    membership.close();
    server.shutdownNow();
    node.shutdown();
    metaChannel.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
