package dev.tide.cluster;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.time.Clock;
import dev.tide.meta.group.MetaGroupStore;
import dev.tide.meta.optimize.CompactionCommitter;
import dev.tide.meta.optimize.OptimizingService;
import dev.tide.meta.store.MetaStore;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupView;
import dev.tide.optimizer.provider.ExternalProvider;
import dev.tide.optimizer.provider.InProcessProvider;
import dev.tide.optimizer.provider.KubernetesOptions;
import dev.tide.optimizer.provider.KubernetesProvider;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.LocalProcessProvider;
import dev.tide.optimizer.provider.ResourceProvider;
import dev.tide.storage.object.ObjectStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meta's compaction workload with its optimizer groups: the {@link OptimizingService}, the
 * {@link GroupKeepers} over it and meta's store, and the resource providers they launch optimizers
 * with: {@code in-process} and {@code external} (optimizers started by hand) always, {@code local} when
 * meta has a local object store whose directory child processes can read, {@code kubernetes} when
 * {@link KubernetesOptions#ENABLED} is set (configured and checked from meta's configuration,
 * {@link KubernetesOptions}). A {@code default} group is created on first start.
 *
 * <p>Releasing an instance stops it, and a stopping optimizer unregisters ({@code OptimizerInstance.close},
 * the shutdown hook of {@code tide optimizer}), so its tasks go back to PLANNED at once; one that dies
 * without unregistering expires at its heartbeat timeout.
 */
public final class OptimizerGroups implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizerGroups.class);
  public static final ConfigOption<Boolean> CREATE_DEFAULT_GROUP = ConfigOption.boolOption("optimizer.create-default-group", true,
      "Create the optimizer group 'default' (in-process, dynamic allocation on, 1 to 4 instances of 2 threads) when meta has no"
          + " group. Off: compaction runs only once a group is created (tide ctl group create) or optimizers are started by hand.");

  /** The group created when none exists: one in-process optimizer of 2 threads, grown on demand up to 4 (8 threads). */
  public static final GroupDefinition DEFAULT_GROUP = GroupDefinition.of("default", InProcessProvider.NAME, Map.of(
      GroupConfig.ENABLED.key(), "true",
      GroupConfig.MIN_PARALLELISM.key(), "2",
      GroupConfig.MAX_PARALLELISM.key(), "8",
      GroupConfig.EXECUTOR_PARALLELISM.key(), "2",
      GroupConfig.SCHEDULER_BACKLOG_TIMEOUT.key(), "2s",
      GroupConfig.SUSTAINED_BACKLOG_TIMEOUT.key(), "2s",
      GroupConfig.EXECUTOR_IDLE_TIMEOUT.key(), "30s",
      GroupConfig.SCALE_DOWN_COOLDOWN.key(), "5s",
      GroupConfig.MAX_PLANNING_PARALLELISM.key(), "4"));

  /** Meta's options of its optimizer groups and their providers. */
  public static final List<ConfigOption<?>> OPTIONS = Stream.concat(Stream.of(CREATE_DEFAULT_GROUP), KubernetesOptions.ALL.stream())
      .toList();

  private final OptimizingService optimizing;
  private final GroupKeepers keepers;
  private final List<ResourceProvider> providers;
  private final ScheduledExecutorService scheduler;
  private final Map<String, GroupConfig> configs;
  private final boolean createDefaultGroup;

  private OptimizerGroups(OptimizingService optimizing, GroupKeepers keepers, List<ResourceProvider> providers,
      ScheduledExecutorService scheduler, Map<String, GroupConfig> configs, boolean createDefaultGroup) {
    this.optimizing = optimizing;
    this.keepers = keepers;
    this.providers = providers;
    this.scheduler = scheduler;
    this.configs = configs;
    this.createDefaultGroup = createDefaultGroup;
  }

  /**
   * Creates the workload and the keepers; both start with {@link #start()}, once meta runs and serves
   * the optimizer API (an in-process optimizer registers as it starts).
   *
   * @param inProcess starts an in-process optimizer for a launch spec (over a channel to this meta)
   * @param local settings of the {@code local} provider, absent when meta has no address child processes can reach
   * @throws IllegalArgumentException when the {@code kubernetes} provider is enabled but misconfigured (naming the option)
   * @throws IllegalStateException when the enabled {@code kubernetes} provider cannot reach its API server or Secrets
   */
  public static OptimizerGroups create(Config config, Clock clock, CompactionCommitter committer, ObjectStore objects,
      MetaStore store, LongSupplier minReaderVersion, Function<LaunchSpec, AutoCloseable> inProcess,
      Optional<LocalProcessProvider.Settings> local) {
    MetaGroupStore groupStore = new MetaGroupStore(store);
    Map<String, GroupConfig> configs = new ConcurrentHashMap<>();
    // The workload reads a group's timeouts often and under its own lock: from a cache the keepers'
    // views refresh, never from the keepers (whose rounds take the workload's lock).
    OptimizingService optimizing = new OptimizingService(config, clock, committer, objects,
        group -> configs.computeIfAbsent(group, g -> GroupConfig.parse(Map.of(), InProcessProvider.NAME)), minReaderVersion);
    Map<String, ResourceProvider> providers = new LinkedHashMap<>();
    providers.put(InProcessProvider.NAME, new InProcessProvider(inProcess));
    local.ifPresent(s -> providers.put(LocalProcessProvider.NAME, new LocalProcessProvider(s)));
    KubernetesOptions.open(config).ifPresent(k -> providers.put(KubernetesProvider.NAME, k));
    providers.put(ExternalProvider.NAME, new ExternalProvider());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "optimizer-group-keepers");
      t.setDaemon(true);
      return t;
    });
    GroupKeepers keepers = new GroupKeepers(clock, scheduler, optimizing, groupStore, providers);
    return new OptimizerGroups(optimizing, keepers, List.copyOf(providers.values()), scheduler, configs,
        config.get(CREATE_DEFAULT_GROUP));
  }

  /**
   * Starts the workload's maintenance tick and the keepers on the stored groups, creating
   * {@link #DEFAULT_GROUP} when there is none (and {@link #CREATE_DEFAULT_GROUP} is on).
   */
  public OptimizerGroups start() {
    optimizing.start();
    keepers.start();
    if (createDefaultGroup && keepers.list().isEmpty()) {
      keepers.create(DEFAULT_GROUP);
    }
    scheduler.scheduleWithFixedDelay(this::refreshConfigs, 0, 1, TimeUnit.SECONDS);
    return this;
  }

  private void refreshConfigs() {
    for (GroupView v : keepers.list()) {
      if (v.configInvalid().isEmpty()) {
        configs.put(v.name(), v.config());
      }
    }
  }

  public OptimizingService optimizing() {
    return optimizing;
  }

  public GroupKeepers keepers() {
    return keepers;
  }

  /**
   * Closes in order: keepers (no more decisions), providers (their optimizers stop and unregister), the
   * workload. Records of resources that died with their provider stay: a restarted meta's first round
   * of each group reconciles them with what the provider holds, and forgets them.
   */
  @Override
  public void close() {
    keepers.close();
    scheduler.shutdownNow();
    for (ResourceProvider p : providers) {
      try {
        p.close();
      } catch (Exception e) {
        LOG.warn("resource provider {} did not close: {}", p.name(), e.toString());
      }
    }
    optimizing.close();
  }
}
