package dev.tide.cluster;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tide.cli.ctl.ViewGrpcService;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.dashboard.Dashboard;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaGrpcService;
import dev.tide.meta.admin.AdminGrpcService;
import dev.tide.meta.admin.AdminViews;
import dev.tide.meta.group.GroupGrpcService;
import dev.tide.meta.group.TableGrpcService;
import dev.tide.meta.optimize.OptimizerGrpcService;
import dev.tide.meta.pool.PoolGrpcService;
import dev.tide.meta.store.JdbcMetaStore;
import dev.tide.meta.store.MetaStore;
import dev.tide.optimizer.provider.LaunchRole;
import dev.tide.optimizer.provider.LocalProcessProvider;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.optimizer.worker.OptimizerSettings;
import dev.tide.storage.object.ClusterMark;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.object.S3Config;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.BindableService;
import io.grpc.HandlerRegistry;
import io.grpc.ServerMethodDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta process: meta over its store (SQLite or PostgreSQL), one gRPC port for compute nodes,
 * optimizers and {@code tide ctl} (meta, admin, job and view services), and an HTTP port serving
 * {@code /metrics} (Prometheus), {@code /api/status} (JSON) and the web dashboard ({@link Dashboard}, under {@code /}). Meta hosts the compaction workload
 * and its optimizer groups ({@link OptimizerGroups}, group and optimizer services on the same port):
 * in-process optimizers reach it over a loopback channel to that port, {@code local} ones are
 * {@code tide optimizer} child processes. Every endpoint requires the cluster token when one is set;
 * without one, servers may bind loopback only.
 */
public final class MetaServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MetaServer.class);

  private final MetaStore store;
  private final Meta meta;
  private final Server grpc;
  private final HttpServer http;
  private final OptimizerGroups groups;
  private final AtomicReference<ManagedChannel> selfChannel;
  private final Dashboard dashboard;
  private final Optional<ComputePoolRuntime> pool;
  private dev.tide.sql.PgServer sql;

  private MetaServer(MetaStore store, Meta meta, Server grpc, HttpServer http, OptimizerGroups groups,
      AtomicReference<ManagedChannel> selfChannel, Dashboard dashboard, Optional<ComputePoolRuntime> pool) {
    this.pool = pool;
    this.dashboard = dashboard;
    this.store = store;
    this.meta = meta;
    this.grpc = grpc;
    this.http = http;
    this.groups = groups;
    this.selfChannel = selfChannel;
  }

  /**
   * Starts meta as {@code config} says ({@link ProcessOptions} and {@code MetaOptions}).
   *
   * @throws IllegalArgumentException for bad options (naming the option)
   * @throws IllegalStateException when the store cannot be opened or a port cannot be bound, naming which and why
   */
  public static MetaServer start(Config config, Optional<ClusterToken> token, Clock clock) {
    Endpoint listen = Endpoint.parse(config.get(ProcessOptions.META_LISTEN), "127.0.0.1:5690");
    InetSocketAddress bind = listen.socketAddress();
    if (bind.isUnresolved()) {
      throw new IllegalArgumentException("meta.listen host '" + listen.host() + "' does not resolve");
    }
    ClusterToken.requireForBind(token, bind.getAddress(), "meta");
    ComputePoolRuntime.checkForMetaProcess(config);
    // A port in use refuses the start before the store is opened, so a failed start leaves no meta.db behind.
    requireFree(bind, "meta", listen, "meta.listen (--listen)");
    int httpPortWanted = config.get(ProcessOptions.META_HTTP_PORT);
    if (httpPortWanted > 0) {
      Endpoint httpAt = listen.withPort(httpPortWanted);
      requireFree(httpAt.socketAddress(), "meta's HTTP endpoint", httpAt, "meta.http-port (--http-port; -1 turns it off)");
    }
    MetaStore store = JdbcMetaStore.open(ProcessOptions.metaStoreUrl(config));
    ObjectStore objects = null;
    Meta meta = null;
    Server grpc = null;
    OptimizerGroups groups = null;
    Optional<ComputePoolRuntime> pool = Optional.empty();
    // In-process optimizers and local optimizer processes reach meta at its own port, as any optimizer does.
    AtomicReference<ManagedChannel> self = new AtomicReference<>();
    try {
      objects = ProcessOptions.objectStore(config);
      String clusterId = ClusterMark.ensure(objects, () -> java.util.UUID.randomUUID().toString());
      Function<String, ManagedChannel> connector = address -> Dial.to(address, token).build();
      meta = new Meta(config, clock, connector, store);
      Meta m = meta;
      CommittedViews views = new CommittedViews(() -> m, objects);
      MetaMetrics metrics = new MetaMetrics(() -> m, views);
      metrics.attach(meta);
      NettyServerBuilder sb = NettyServerBuilder.forAddress(bind);
      for (BindableService s : List.of(new MetaGrpcService(meta, clusterId), new AdminGrpcService(meta, null), new ViewGrpcService(() -> m, views),
          new JobGrpcService(() -> m, config))) {
        sb.addService(guarded(s, token));
      }
      // The optimizer and group services join once the port is bound: their providers launch optimizers at it.
      LateServices late = new LateServices();
      sb.fallbackHandlerRegistry(late);
      grpc = bindOrExplain(sb.build(), "meta", listen, "meta.listen (--listen)");
      String host = bind.getAddress().isAnyLocalAddress() || bind.getAddress().isLoopbackAddress() ? "127.0.0.1" : listen.host();
      String selfAddress = host + ":" + grpc.getPort();
      self.set(Dial.to(selfAddress, token).build());
      ObjectStore o = objects;
      Optional<LocalProcessProvider.Settings> local = config.isSet(S3Config.BUCKET) ? Optional.empty()
          : Optional.of(localProviderSettings(config, selfAddress, token));
      groups = OptimizerGroups.create(config, clock, meta.compactionCommitter(), objects, store,
          // Compute nodes report their readers' oldest version with each heartbeat.
          () -> Math.min(m.minReaderVersion(), views.oldestPinnedVersion()),
          spec -> OptimizerInstance.start(self.get(), o, OptimizerSettings.of(spec.group(), spec.threads())
              .withResourceId(spec.resourceId())),
          local);
      late.addService(guarded(new OptimizerGrpcService(groups.optimizing(), clusterId), token));
      late.addService(guarded(new GroupGrpcService(groups.keepers()), token));
      late.addService(guarded(new TableGrpcService(groups.optimizing(), groups.keepers()), token));
      int httpPort = config.get(ProcessOptions.META_HTTP_PORT);
      HttpServer http = httpPort < 0 ? null : startHttp(listen.withPort(httpPort), token, metrics, m, views);
      meta.start();
      groups.keepers().bindMetrics(metrics.registry());
      groups.start();
      pool = ComputePoolRuntime.forMetaProcess(config, meta, store, clock, selfAddress, token);
      pool.ifPresent(p -> p.pool().bindMetrics(metrics.registry()));
      Optional<ComputePoolRuntime> poolRuntime = pool;
      late.addService(guarded(new PoolGrpcService(() -> poolRuntime.map(ComputePoolRuntime::pool), m::workerHealth), token));
      // The dashboard reads and acts through the admin API at meta's own port, as tide ctl does.
      Dashboard dashboard = http == null ? null : new Dashboard(m, self.get(), views, token).mount(http);
      MetaServer server = new MetaServer(store, meta, grpc, http, groups, self, dashboard, pool);
      server.sql = SqlFrontend.start(() -> m, views, config, token, listen.host(), -1);
      LOG.info("meta serving gRPC on {}:{}{}, store {}, objects {}", listen.host(), grpc.getPort(),
          http == null ? "" : ", HTTP on port " + http.getAddress().getPort(), store.describe(), objects);
      return server;
    } catch (RuntimeException e) {
      pool.ifPresent(ComputePoolRuntime::close);
      if (groups != null) {
        groups.close();
      }
      if (self.get() != null) {
        self.get().shutdownNow();
      }
      if (grpc != null) {
        grpc.shutdownNow();
      }
      if (meta != null) {
        meta.close();
      }
      store.close();
      throw e;
    }
  }

  /**
   * The {@code local} provider: {@code tide optimizer} processes on this machine, with meta's own
   * address (known once bound), the cluster token and the local object store directory.
   */
  private static LocalProcessProvider.Settings localProviderSettings(Config config, String selfAddress, Optional<ClusterToken> token) {
    String dir = config.get(ProcessOptions.OBJECT_STORE_DIR);
    Path objects = (dir.isBlank() ? ProcessOptions.dataDir(config).resolve("objects") : Path.of(dir)).toAbsolutePath();
    LocalProcessProvider.Settings base = LocalProcessProvider.Settings.of(selfAddress,
        ProcessOptions.dataDir(config).resolve("optimizer-logs").toAbsolutePath());
    return new LocalProcessProvider.Settings(selfAddress, base.classpath(), base.mainClass(), base.logDir(),
        token.map(t -> t.header().substring("Bearer ".length())), base.stopTimeout(), List.of("--objects", objects.toString()),
        LaunchRole.OPTIMIZER);
  }

  /** Services added after the server started: looked up when no service given to the builder has the method. */
  private static final class LateServices extends HandlerRegistry {
    private final Map<String, ServerMethodDefinition<?, ?>> methods = new ConcurrentHashMap<>();

    void addService(ServerServiceDefinition service) {
      service.getMethods().forEach(m -> methods.put(m.getMethodDescriptor().getFullMethodName(), m));
    }

    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      return methods.get(methodName);
    }
  }

  private static ServerServiceDefinition guarded(BindableService service, Optional<ClusterToken> token) {
    ServerServiceDefinition def = service.bindService();
    return token.map(t -> ServerInterceptors.intercept(def, t.interceptor())).orElse(def);
  }

  /** Refuses a fixed port that is taken (port 0 is always free); the real bind may still lose a race, and says so the same way. */
  private static void requireFree(InetSocketAddress at, String who, Endpoint listen, String option) {
    if (at.getPort() == 0) {
      return;
    }
    try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(at);
    } catch (IOException e) {
      throw new IllegalStateException(who + " cannot listen on " + listen + ": " + e.getMessage()
          + "; choose another address with " + option + " (port 0 picks a free one)", e);
    }
  }

  /** Starts {@code server}, turning a bind failure into one clear line. */
  static Server bindOrExplain(Server server, String who, Endpoint listen, String option) {
    try {
      return server.start();
    } catch (IOException e) {
      server.shutdownNow();
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof BindException)) {
        cause = cause.getCause();
      }
      throw new IllegalStateException(who + " cannot listen on " + listen + ": " + cause.getMessage()
          + "; choose another address with " + option + " (port 0 picks a free one)", e);
    }
  }

  private static HttpServer startHttp(Endpoint at, Optional<ClusterToken> token, MetaMetrics metrics, Meta meta, CommittedViews views) {
    HttpServer http;
    try {
      http = HttpServer.create(at.socketAddress(), 16);
    } catch (IOException e) {
      throw new IllegalStateException("meta's HTTP endpoint cannot listen on " + at + ": " + e.getMessage()
          + "; choose another port with meta.http-port (--http-port; 0 picks a free one, -1 turns it off)", e);
    }
    http.setExecutor(Dashboard.requestThreads());
    http.createContext("/metrics", ex -> serve(ex, token, "text/plain; version=0.0.4; charset=utf-8", metrics::scrape));
    http.createContext("/api/status", ex -> serve(ex, token, "application/json",
        () -> ProtoJson.print(AdminViews.status(meta, meta.clock().nowMillis()).toBuilder()
            .addAllJobList(JobStates.summaries(meta, views)).build())));
    http.start();
    return http;
  }

  private interface Body {
    String get() throws IOException;
  }

  private static void serve(HttpExchange ex, Optional<ClusterToken> token, String type, Body body) throws IOException {
    try (ex) {
      int code;
      String text;
      if (token.isPresent() && !token.get().accepts(ex.getRequestHeaders().getFirst("Authorization"))) {
        code = 401;
        text = "{\"error\":\"missing or wrong cluster token: send 'Authorization: Bearer <token>'\"}";
        type = "application/json";
      } else if (!"GET".equals(ex.getRequestMethod())) {
        code = 405;
        text = "{\"error\":\"only GET is served here\"}";
        type = "application/json";
      } else {
        code = 200;
        text = body.get();
      }
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(code, bytes.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  public Meta meta() {
    return meta;
  }

  public int grpcPort() {
    return grpc.getPort();
  }

  /** The SQL server's port, or -1 when it is off. */
  public int sqlPort() {
    return sql == null ? -1 : sql.port();
  }

  /** The HTTP port, or -1 when HTTP is off. */
  public int httpPort() {
    return http == null ? -1 : http.getAddress().getPort();
  }

  /** Blocks until the gRPC server terminates. */
  public void awaitTermination() throws InterruptedException {
    grpc.awaitTermination();
  }

  /** Meta's compute pool, when {@code compute-pool.provider} sets one. */
  public Optional<dev.tide.meta.pool.ComputePool> computePool() {
    return pool.map(ComputePoolRuntime::pool);
  }

  /** Meta's optimizer groups and their scale keepers. */
  public OptimizerGroups optimizerGroups() {
    return groups;
  }

  /** Closes in order: keepers, providers (their optimizers stop), the optimizing service, then meta. */
  @Override
  public void close() {
    if (sql != null) {
      sql.close();
    }
    pool.ifPresent(ComputePoolRuntime::close);
    groups.close();
    selfChannel.get().shutdownNow();
    if (http != null) {
      dashboard.close();
      http.stop(0);
    }
    grpc.shutdownNow();
    meta.close();
    try {
      grpc.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    store.close();
  }
}
