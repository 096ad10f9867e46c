package dev.tide.meta.pool;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.Meta;
import dev.tide.meta.store.MetaStore;
import dev.tide.meta.store.PoolResourceRecord;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.dra.PoolLoad;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupLoadSource;
import dev.tide.optimizer.keeper.GroupStore;
import dev.tide.optimizer.keeper.GroupView;
import dev.tide.optimizer.keeper.KeeperAction;
import dev.tide.optimizer.keeper.ResourceRecord;
import dev.tide.optimizer.provider.ResourceProvider;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meta's compute pool ("the cloud manager"): compute nodes requested from a resource provider when
 * the jobs want more slots than the cluster has, drained (their actors migrate off online) and
 * released when their slots are not needed for {@code compute-pool.idle-timeout}. It is the optimizer
 * groups' machinery, not a copy: one {@link GroupKeepers} whose one group, {@value ComputePoolOptions#POOL},
 * is defined by {@link ComputePoolOptions}, whose load source is {@link ComputeDemand} over meta's
 * workers and jobs, and whose store is meta's ({@code pool_resources}; actions kept as decisions of
 * scope {@code pool:compute}). A drain goes through {@link Meta#drainWorker}, as {@code tide ctl worker
 * drain} does; a drained node leaves when meta tells it to, and its resource is then released.
 *
 * <p>The keeper wakes on its deadlines and on changes of the demand or of the workers, which a
 * one-second check of meta's state turns into load events.
 */
public final class ComputePool implements GroupLoadSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputePool.class);
  /** Actions of the pool kept in the meta store. */
  public static final int KEPT_ACTIONS = 20;
  private static final String SCOPE = "pool:" + ComputePoolOptions.POOL;

  private final Meta meta;
  private final MetaStore store;
  private final Clock clock;
  private final GroupDefinition definition;
  private final ResourceProvider provider;
  private final ScheduledExecutorService scheduler;
  private final GroupKeepers keepers;
  private final Set<String> keeperDrains = ConcurrentHashMap.newKeySet();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile String lastSignature = "";
  /** When each node was last seen busy (wall ms), read every second: where its idle clock starts. Guarded by this. */
  private Map<String, Long> lastBusy = Map.of();

  /**
   * @param provider launches compute nodes that register with meta under their resource id
   * @throws IllegalArgumentException when the {@code compute-pool.*} options are invalid, naming the key
   */
  public ComputePool(Meta meta, MetaStore store, Config config, Clock clock, ResourceProvider provider) {
    this.meta = Objects.requireNonNull(meta, "meta");
    this.store = Objects.requireNonNull(store, "store");
    this.provider = Objects.requireNonNull(provider, "provider");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.definition = ComputePoolOptions.definition(config);
    if (!definition.provider().equals(provider.name())) {
      throw new IllegalArgumentException("compute pool: provider '" + provider.name() + "' given for compute-pool.provider '"
          + definition.provider() + "'");
    }
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "compute-pool-keeper");
      t.setDaemon(true);
      return t;
    });
    this.keepers = new GroupKeepers(clock, scheduler, this, new Store(), Map.of(provider.name(), provider), ComputePoolOptions.TERMS);
  }

  /** Starts the keeper on the stored resources and the check that turns changes into load events. */
  public ComputePool start() {
    keepers.start();
    scheduler.scheduleWithFixedDelay(this::checkForChanges, 1, 1, TimeUnit.SECONDS);
    LOG.info("compute pool on: provider {}, {}", definition.provider(), definition.properties());
    return this;
  }

  /** The pool as the keeper shows it: configuration, last decision, recent actions, resources. */
  public GroupView view() {
    return keepers.show(ComputePoolOptions.POOL).orElseThrow();
  }

  /**
   * Publishes the pool in {@code registry}: {@code tide.compute.pool.wanted.slots} (what the jobs want),
   * {@code tide.compute.pool.effective.slots} (active nodes' slots plus booting requests),
   * {@code tide.compute.pool.launched.nodes} (nodes the pool launched that are registered) and
   * {@code tide.compute.pool.draining.nodes}.
   */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry) {
    io.micrometer.core.instrument.Gauge.builder("tide.compute.pool.wanted.slots", this, p -> p.demand().wantedSlots()).register(registry);
    io.micrometer.core.instrument.Gauge.builder("tide.compute.pool.effective.slots", this, p -> p.view().metrics().effectiveThreads())
        .register(registry);
    io.micrometer.core.instrument.Gauge.builder("tide.compute.pool.launched.nodes", this,
        p -> p.demand().instances().stream().filter(InstanceView::providerLaunched).count()).register(registry);
    io.micrometer.core.instrument.Gauge.builder("tide.compute.pool.draining.nodes", this, p -> p.view().metrics().drainingInstances())
        .register(registry);
  }

  /** The pool's demand and nodes now, each node with when it was last seen busy. */
  public ComputeDemand demand() {
    ComputeDemand d = currentDemand();
    synchronized (this) {
      lastBusy = d.lastBusy(lastBusy, clock.nowMillis());
      return d.withLastBusy(lastBusy);
    }
  }

  private ComputeDemand currentDemand() {
    List<dev.tide.meta.core.MetaCore.WorkerHealth> workers = meta.workerHealth();
    Set<String> known = new java.util.HashSet<>();
    workers.forEach(w -> known.add(ComputeDemand.instanceId(w.worker().id())));
    keeperDrains.retainAll(known); // drained nodes meta forgot
    return ComputeDemand.of(workers, meta.snapshot().jobs().values(), Set.copyOf(keeperDrains));
  }

  private void checkForChanges() {
    try {
      ComputeDemand d = demand();
      // Not lastTaskMs: a busy node's reading changes every second. States too: a drained node turning LEFT
      // keeps the same instance view, yet it is now removable.
      String signature = d.wantedSlots() + " " + d.instances().stream()
          .map(i -> i.instanceId() + "/" + i.threads() + "/" + i.inFlightTasks() + "/" + i.resourceId().orElse("")).toList() + " "
          + meta.workerHealth().stream()
          .map(w -> w.worker().id() + ":" + w.state()).toList();
      if (!signature.equals(lastSignature)) {
        lastSignature = signature;
        listeners.forEach(Runnable::run);
      }
    } catch (RuntimeException e) {
      LOG.debug("compute pool: state check failed, retried in 1 s: {}", e.toString());
    }
  }

  @Override
  public void close() {
    keepers.close();
    scheduler.shutdownNow();
  }

  // ---------------------------------------------------------------- GroupLoadSource

  @Override
  public List<TableLoad> tables(String group) {
    return List.of();
  }

  @Override
  public PoolLoad load(String group) {
    return demand().load();
  }

  @Override
  public List<InstanceView> instances(String group) {
    return demand().instances();
  }

  @Override
  public void drain(String group, String instanceId) {
    ComputeDemand.workerId(instanceId).ifPresent(id -> {
      keeperDrains.add(instanceId);
      try {
        meta.drainWorker(id);
      } catch (RuntimeException e) {
        keeperDrains.remove(instanceId);
        LOG.warn("compute pool: drain of worker {} refused: {}", id, e.getMessage());
      }
    });
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  /** The pool's group (from the options) and its resources and actions in meta's store. */
  private final class Store implements GroupStore {
    @Override
    public List<GroupDefinition> groups() {
      return List.of(definition);
    }

    @Override
    public void putGroup(GroupDefinition group) {
      throw new UnsupportedOperationException("the compute pool is configured by the compute-pool.* options of meta");
    }

    @Override
    public boolean deleteGroup(String name) {
      throw new UnsupportedOperationException("the compute pool is configured by the compute-pool.* options of meta");
    }

    @Override
    public List<ResourceRecord> resources() {
      return store.poolResources().stream().map(r -> new ResourceRecord(r.resourceId(), r.pool(), r.units(), r.requestedAtMs()))
          .toList();
    }

    @Override
    public void putResource(ResourceRecord r) {
      store.putPoolResource(new PoolResourceRecord(r.resourceId(), r.group(), r.threads(), r.requestedAtMs()));
    }

    @Override
    public boolean deleteResource(String resourceId) {
      return store.deletePoolResource(resourceId);
    }

    @Override
    public void putAction(String group, KeeperAction action) {
      store.appendDecision(SCOPE, action.atMs(), action.reason(), KEPT_ACTIONS);
    }

    @Override
    public List<KeeperAction> actions(String group) {
      return store.decisions(SCOPE).stream().map(d -> new KeeperAction(d.atMs(), d.decision())).toList();
    }
  }
}
