package dev.tide.cluster;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.admin.AdminGrpcService;
import dev.tide.proto.admin.FragmentsRequest;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.RescheduleReply;
import dev.tide.proto.admin.ScaleJobRequest;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.meta.store.CatalogRecord;
import dev.tide.sql.CatalogEntry;
import dev.tide.sql.PgServer;
import dev.tide.sql.SqlCluster;
import dev.tide.sql.SqlEngine;
import dev.tide.sql.SqlOptions;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The SQL server where meta runs: a {@link PgServer} over a {@link SqlEngine} whose cluster is meta
 * (jobs, reschedules through the admin service) and its committed views.
 */
public final class SqlFrontend implements SqlCluster {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlFrontend.class);
  private final Supplier<Meta> meta;
  private final CommittedViews views;
  private final Config config;

  private SqlFrontend(Supplier<Meta> meta, CommittedViews views, Config config) {
    this.meta = meta;
    this.views = views;
    this.config = config;
  }

  /**
   * Serves SQL on {@code host} at {@code sql.port} (or {@code port} when not negative); the password
   * is the cluster token when one is set. Returns null when {@code sql.port} is -1 (off).
   */
  public static PgServer start(Supplier<Meta> meta, CommittedViews views, Config config, Optional<ClusterToken> token, String host,
      int port) {
    int p = port >= 0 ? port : config.get(SqlOptions.PORT);
    if (p < 0) {
      return null;
    }
    SqlEngine engine = new SqlEngine(new SqlFrontend(meta, views, config), config.get(MetaOptions.VNODE_COUNT));
    Optional<String> password = token.map(t -> t.header().substring("Bearer ".length()));
    try {
      return PgServer.start(new InetSocketAddress(host, p), engine, password, new SecureRandom());
    } catch (IllegalStateException e) {
      if (port >= 0 || config.isSet(SqlOptions.PORT)) {
        throw e;
      }
      // The default port is taken (another cluster on this machine): any free one, as the log says.
      LOG.warn("SQL default port {} is taken; serving SQL on a free port instead (set {} to choose)", p, SqlOptions.PORT.key());
      return PgServer.start(new InetSocketAddress(host, 0), engine, password, new SecureRandom());
    }
  }

  @Override
  public Map<String, JobDefinition> jobs() {
    return meta.get().jobs();
  }

  @Override
  public JobDefinition create(Plan plan) {
    return JobGrpcService.submit(meta.get(), config, plan);
  }

  @Override
  public void drop(String job) {
    meta.get().dropJob(job);
  }

  @Override
  public List<Object[]> scan(String view) {
    return views.scan(view);
  }

  @Override
  public RescheduleReply scale(String job, String parallelism) {
    return call((s, o) -> s.scale(ScaleJobRequest.newBuilder().setJob(job).setParallelism(parallelism).build(), o));
  }

  @Override
  public FragmentsResponse fragments(String job) {
    return call((s, o) -> s.fragments(FragmentsRequest.newBuilder().setJob(job).build(), o));
  }

  @Override
  public long write(String job, dev.tide.proto.stream.Dml dml) {
    return meta.get().dml(job, dml);
  }

  @Override
  public java.util.SortedMap<String, CatalogEntry> catalog() {
    java.util.SortedMap<String, CatalogEntry> out = new java.util.TreeMap<>();
    meta.get().catalog().forEach((name, r) -> out.put(name, new CatalogEntry(r.name(), r.kind(), r.definition(), r.dependsOn())));
    return out;
  }

  @Override
  public void putCatalog(CatalogEntry e) {
    meta.get().putCatalog(new CatalogRecord(e.name(), e.kind(), e.sql(), e.dependsOn()), false);
  }

  @Override
  public boolean dropCatalog(String name) {
    return meta.get().dropCatalog(name);
  }

  /** One call of the admin service, its error status turned back into the exception the contract names. */
  private <T> T call(BiConsumer<AdminGrpcService, StreamObserver<T>> method) {
    AtomicReference<T> value = new AtomicReference<>();
    AtomicReference<Throwable> error = new AtomicReference<>();
    method.accept(new AdminGrpcService(meta.get(), null), new StreamObserver<>() {
      @Override
      public void onNext(T v) {
        value.set(v);
      }

      @Override
      public void onError(Throwable t) {
        error.set(t);
      }

      @Override
      public void onCompleted() {}
    });
    if (error.get() instanceof StatusRuntimeException e) {
      String msg = e.getStatus().getDescription();
      throw e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT ? new IllegalArgumentException(msg) : new IllegalStateException(msg);
    }
    if (error.get() != null) {
      throw new IllegalStateException(error.get().getMessage(), error.get());
    }
    return value.get();
  }
}
