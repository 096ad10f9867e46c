package dev.tide.cluster;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.time.Clock;
import dev.tide.meta.Meta;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.pool.ComputePool;
import dev.tide.meta.pool.ComputePoolOptions;
import dev.tide.meta.store.MetaStore;
import dev.tide.optimizer.provider.InProcessProvider;
import dev.tide.optimizer.provider.KubernetesOptions;
import dev.tide.optimizer.provider.KubernetesProvider;
import dev.tide.optimizer.provider.LaunchRole;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.LocalProcessProvider;
import dev.tide.optimizer.provider.ResourceProvider;
import dev.tide.storage.object.S3Config;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meta's compute pool with the provider it launches compute nodes through, as {@code compute-pool.provider}
 * says: {@code local} ({@code tide compute} children of the meta process, over meta's data directory and
 * local object store), {@code kubernetes} (a Deployment per node, with meta's {@code optimizer.kubernetes.*}
 * settings) or {@code in-process} (nodes of the embedded cluster).
 */
public final class ComputePoolRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputePoolRuntime.class);

  private final ComputePool pool;
  private final List<AutoCloseable> owned;

  private ComputePoolRuntime(ComputePool pool, List<AutoCloseable> owned) {
    this.pool = pool;
    this.owned = owned;
  }

  /**
   * Checks a {@code tide meta} process's {@code compute-pool.*} options before anything starts.
   *
   * @throws ConfigException naming the option, its value and the rule
   */
  public static void checkForMetaProcess(Config config) {
    if (!ComputePoolOptions.enabled(config)) {
      return;
    }
    String provider = config.get(ComputePoolOptions.PROVIDER);
    if (provider.equals(InProcessProvider.NAME)) {
      throw new ConfigException(ComputePoolOptions.PROVIDER.key(), "in-process: in-process compute nodes run only in the embedded"
          + " cluster (./tide playground); a meta process launches local or kubernetes ones");
    }
    if (provider.equals(LocalProcessProvider.NAME) && config.isSet(S3Config.BUCKET)) {
      throw new ConfigException(ComputePoolOptions.PROVIDER.key(), "local: local compute nodes read meta's local object"
          + " directory, but the object store is S3 (s3.bucket); use kubernetes, or start compute nodes by hand");
    }
    if (provider.equals(KubernetesProvider.NAME) && !config.get(KubernetesOptions.ENABLED)) {
      throw new ConfigException(ComputePoolOptions.PROVIDER.key(), "kubernetes: needs " + KubernetesOptions.ENABLED.key()
          + "=true and its settings (namespace, image, meta address, Secrets)");
    }
    ComputePoolOptions.definition(config);
  }

  /**
   * The pool of a {@code tide meta} process, started; empty when {@code compute-pool.provider} is {@code none}.
   *
   * @param selfAddress meta's gRPC address as child processes reach it
   * @throws IllegalArgumentException for options that do not fit this meta, naming the option
   */
  public static Optional<ComputePoolRuntime> forMetaProcess(Config config, Meta meta, MetaStore store, Clock clock, String selfAddress,
      Optional<ClusterToken> token) {
    if (!ComputePoolOptions.enabled(config)) {
      return Optional.empty();
    }
    checkForMetaProcess(config);
    String provider = config.get(ComputePoolOptions.PROVIDER);
    List<AutoCloseable> owned = new ArrayList<>();
    ResourceProvider p;
    switch (provider) {
      case LocalProcessProvider.NAME -> {
        List<String> args = new ArrayList<>(List.of("--data-dir", ProcessOptions.dataDir(config).toAbsolutePath().toString()));
        String objects = config.get(ProcessOptions.OBJECT_STORE_DIR);
        if (!objects.isBlank()) {
          args.addAll(List.of("--set", ProcessOptions.OBJECT_STORE_DIR.key() + "=" + Path.of(objects).toAbsolutePath()));
        }
        args.addAll(List.of("--set", MetaOptions.HEARTBEAT_INTERVAL.key() + "=" + config.get(MetaOptions.HEARTBEAT_INTERVAL).toMillis() + "ms"));
        LocalProcessProvider.Settings base = LocalProcessProvider.Settings.of(selfAddress,
            ProcessOptions.dataDir(config).resolve("compute-logs").toAbsolutePath());
        p = new LocalProcessProvider(new LocalProcessProvider.Settings(selfAddress, base.classpath(), base.mainClass(), base.logDir(),
            token.map(t -> t.header().substring("Bearer ".length())), base.stopTimeout(), args, LaunchRole.COMPUTE));
      }
      case KubernetesProvider.NAME -> {
        KubernetesProvider k = KubernetesOptions.open(config).orElseThrow();
        owned.add(k);
        p = k.forRole(LaunchRole.COMPUTE);
      }
      default -> throw new ConfigException(ComputePoolOptions.PROVIDER.key(), provider + ": unknown provider");
    }
    owned.add(0, p);
    return Optional.of(start(config, meta, store, clock, p, owned));
  }

  /** The pool of the embedded cluster, started: {@code launch} starts a node for a spec and returns what stops it. */
  public static Optional<ComputePoolRuntime> inProcess(Config config, Meta meta, MetaStore store, Clock clock,
      Function<LaunchSpec, AutoCloseable> launch) {
    if (!ComputePoolOptions.enabled(config)) {
      return Optional.empty();
    }
    if (!config.get(ComputePoolOptions.PROVIDER).equals(InProcessProvider.NAME)) {
      throw new ConfigException(ComputePoolOptions.PROVIDER.key(), config.get(ComputePoolOptions.PROVIDER)
          + ": the embedded cluster launches in-process compute nodes only (compute-pool.provider=in-process)");
    }
    InProcessProvider p = new InProcessProvider(launch);
    return Optional.of(start(config, meta, store, clock, p, new ArrayList<>(List.of(p))));
  }

  private static ComputePoolRuntime start(Config config, Meta meta, MetaStore store, Clock clock, ResourceProvider p,
      List<AutoCloseable> owned) {
    try {
      return new ComputePoolRuntime(new ComputePool(meta, store, config, clock, p).start(), owned);
    } catch (RuntimeException e) {
      closeAll(owned);
      throw e;
    }
  }

  public ComputePool pool() {
    return pool;
  }

  /** Stops the keeper, then the provider (its local or in-process nodes stop; Kubernetes Deployments stay). */
  @Override
  public void close() {
    pool.close();
    closeAll(owned);
  }

  private static void closeAll(List<AutoCloseable> owned) {
    for (AutoCloseable c : owned) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("compute pool: closing {} failed: {}", c, e.toString());
      }
    }
  }
}
