package dev.tide.cli.ctl;

import dev.tide.meta.Meta;
import dev.tide.meta.admin.AdminGrpcService;
import dev.tide.meta.admin.WorkerLauncher;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Meta's admin API served over gRPC (Netty) on the loopback interface only: it has no
 * authentication, so nothing outside this machine may reach it.
 */
public final class AdminServer implements AutoCloseable {
  private final Server server;

  private AdminServer(Server server) {
    this.server = server;
  }

  /**
   * Binds {@code 127.0.0.1:port} ({@code 0}: any free port) and serves {@link AdminGrpcService}.
   *
   * @param launcher starts compute nodes for {@code tide ctl worker add}; null when there is none
   * @param extra more services on the same port (the playground adds {@link ViewGrpcService})
   * @throws IllegalStateException naming the address when it cannot be bound (e.g. the port is taken)
   */
  public static AdminServer start(int port, Meta meta, WorkerLauncher launcher, BindableService... extra) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("admin port " + port + " is not between 0 and 65535");
    }
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address).addService(new AdminGrpcService(meta, launcher));
    for (BindableService s : extra) {
      builder.addService(s);
    }
    Server server = builder.build();
    try {
      server.start();
    } catch (IOException e) {
      server.shutdownNow();
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof BindException)) {
        cause = cause.getCause();
      }
      throw new IllegalStateException("the admin API cannot listen on " + host(address) + ":" + port + ": " + cause.getMessage()
          + (port == 0 ? "" : "; choose another port with --admin-port (0 picks a free one)"), e);
    }
    return new AdminServer(server);
  }

  /** The port the server listens on (the chosen one when started with 0). */
  public int port() {
    return server.getPort();
  }

  /** {@code 127.0.0.1:PORT}, as {@code tide ctl --meta} takes it. */
  public String address() {
    return host(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)) + ":" + port();
  }

  private static String host(InetSocketAddress a) {
    String h = a.getAddress().getHostAddress();
    return h.contains(":") ? "[" + h + "]" : h;
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
