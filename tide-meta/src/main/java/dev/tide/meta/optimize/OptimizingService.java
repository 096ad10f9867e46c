package dev.tide.meta.optimize;

import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.common.time.Clock;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import dev.tide.optimizer.keeper.GroupLoadSource;
import dev.tide.optimizer.workload.CompactionPlan;
import dev.tide.optimizer.workload.CompactionPlanner;
import dev.tide.optimizer.workload.ObsoleteSsts;
import dev.tide.optimizer.workload.OptimizingQueue;
import dev.tide.optimizer.workload.TableSettings;
import dev.tide.optimizer.workload.TaskView;
import dev.tide.optimizer.workload.WorkloadOptions;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.object.ObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimizing service of meta: the shell around {@link OptimizingQueue} that does its effects.
 * Optimizer RPCs ({@link OptimizerGrpcService}) call it on any thread; its own driver thread plans the
 * tables a poll started planning, commits finished compactions through {@link CompactionCommitter},
 * and every tick (reading the clock once) observes the committed version (trigger), expires silent
 * instances and unacknowledged tasks, and deletes obsolete SSTs (see {@link ObsoleteSsts}) that no
 * reader can use any more. It is the {@link GroupLoadSource} of the scale keeper.
 *
 * <p>Tasks live in memory only: after a meta restart, tables are observed again and re-planned, and
 * results of the old run's tasks are refused (their optimizers delete the outputs). Obsolete SSTs
 * are durable: each compaction commit records the SSTs it dropped in the meta store, a new run picks
 * up those not yet deleted, and a deletion is forgotten once its object is gone.
 *
 * <p>Thread-safety: safe for concurrent use.
 */
public final class OptimizingService implements GroupLoadSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizingService.class);
  /** Interval of the maintenance tick. */
  public static final long TICK_MS = 200;
  /** The default heartbeat interval of an optimizer instance. */
  public static final long HEARTBEAT_INTERVAL_MS = 10_000;

  private final Clock clock;
  private final Function<String, GroupConfig> groups;
  private final CompactionCommitter meta;
  private final ObjectStore objects;
  private final LongSupplier minReaderVersion;
  private final OptimizingQueue queue;
  private final ObsoleteSsts obsolete;
  private final ScheduledExecutorService driver;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong deletedSsts = new AtomicLong();
  private long observedVersionId = -1; // driver thread
  /** The optimizing properties operators set, by table id; guarded by this. */
  private final Map<Long, Map<String, String>> tableProperties = new HashMap<>();

  /**
   * @param config meta's config: the {@link WorkloadOptions} are read from it
   * @param groups the configuration of an optimizer group by name (defaults for one without)
   * @param objects the object store holding the SSTs, for deleting obsolete ones
   * @param minReaderVersion the lowest version id a reader may still use: the version every live
   *     compute node installed, lowered by versions pinned by open scans where they are known
   */
  public OptimizingService(Config config, Clock clock, CompactionCommitter meta, ObjectStore objects,
      Function<String, GroupConfig> groups, LongSupplier minReaderVersion) {
    this.clock = clock;
    this.groups = groups;
    this.meta = meta;
    this.objects = objects;
    this.minReaderVersion = minReaderVersion;
    WorkloadOptions options = WorkloadOptions.from(config);
    this.queue = new OptimizingQueue(options, groups, Long.toString(clock.nowMillis(), 36));
    this.obsolete = new ObsoleteSsts(options.deleteGraceMs());
    meta.tableProperties().forEach((id, props) -> {
      try {
        queue.configureTable(id, TableSettings.parse(props));
        tableProperties.put(id, new TreeMap<>(props));
      } catch (IllegalArgumentException e) {
        LOG.warn("table {}: stored optimizing properties {} are invalid, the defaults apply: {}", id, props, e.getMessage());
      }
    });
    // A predecessor's obsolete SSTs wait under the same rule: readers past the dropping version, then the grace.
    for (ObsoleteSstRecord r : meta.obsoleteSsts()) {
      obsolete.dropped(List.of(r.sst()), r.droppedByVersion());
    }
    this.driver = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "optimizing-driver");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts the maintenance tick. */
  public OptimizingService start() {
    driver.scheduleWithFixedDelay(this::maintain, 0, TICK_MS, TimeUnit.MILLISECONDS);
    return this;
  }

  @Override
  public void close() {
    driver.shutdownNow();
    try {
      driver.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public WorkloadOptions options() {
    return queue.options();
  }

  // ---------------------------------------------------------------- optimizer calls (any thread)

  /**
   * Registers an optimizer instance.
   *
   * @throws SecurityException if meta requires a registration token and {@code token} differs
   */
  public String register(String group, int threads, Optional<String> resourceId, String token) {
    String required = queue.options().registerToken();
    if (!required.isEmpty() && !required.equals(token)) {
      throw new SecurityException("optimizer registration in group '" + group
          + "' refused: wrong registration token (optimizer.register-token)");
    }
    String id = queue.register(group, threads, resourceId, clock.nowMillis());
    LOG.info("optimizer {} registered in group '{}' with {} threads{}", id, group, threads,
        resourceId.map(r -> " (resource " + r + ")").orElse(""));
    fire();
    return id;
  }

  /** How often an instance should heartbeat: every 10 s, or a third of its group's heart-beat timeout if that is shorter. */
  public long heartbeatIntervalMs(String instanceId) {
    return Math.min(HEARTBEAT_INTERVAL_MS, groups.apply(queue.groupOf(instanceId)).heartBeatTimeout().toMillis() / 3);
  }

  public void heartbeat(String instanceId) {
    queue.heartbeat(instanceId, clock.nowMillis());
  }

  /** Removes an instance (its goodbye, or the keeper after releasing its resource); its tasks go back to PLANNED. */
  public void unregister(String instanceId) {
    int reclaimed = queue.unregister(instanceId);
    LOG.info("optimizer {} unregistered; {} tasks back to PLANNED", instanceId, reclaimed);
    fire();
  }

  /** A thread's poll: a task, or none (and maybe the start of planning, done on the driver). */
  public Optional<TaskView> poll(String instanceId, int thread) {
    observe();
    OptimizingQueue.PollResult r = queue.poll(instanceId, thread, clock.nowMillis());
    for (long table : r.planningStarted()) {
      driver.execute(() -> plan(table));
    }
    return r.task();
  }

  public void ack(String instanceId, long taskId, int attempt) {
    queue.ack(instanceId, taskId, attempt, clock.nowMillis());
  }

  /** A thread's result; a finished table is committed on the driver. */
  public void complete(String instanceId, long taskId, int attempt, List<SstInfo> outputs, String error) {
    OptimizingQueue.Completion c = queue.complete(instanceId, taskId, attempt, outputs, error, clock.nowMillis());
    delete(c.discarded());
    c.commit().ifPresent(work -> driver.execute(() -> commit(work)));
    fire();
  }

  public long allocateSstIds(String instanceId, int count) {
    queue.groupOf(instanceId); // only registered instances
    return meta.allocateSstIds(count);
  }

  // ---------------------------------------------------------------- tables

  /**
   * Sets and removes a table's optimizing properties ({@code self-optimizing.group},
   * {@code self-optimizing.quota}), durably; they apply from the table's next poll.
   *
   * @param groupExists whether an optimizer group of that name exists
   * @throws NoSuchElementException if the committed version holds no SST of the table
   * @throws IllegalArgumentException naming the property, the value and the rule; nothing changed
   */
  public synchronized TableInfo updateTable(long tableId, Map<String, String> set, List<String> unset, Predicate<String> groupExists) {
    String op = "update of table " + tableId;
    StoreVersion v = meta.committedVersion();
    Set<Long> known = tableIds(v);
    if (!known.contains(tableId)) {
      throw new NoSuchElementException(op + " refused: the committed state-store version holds no table " + tableId
          + " (tables: " + known + "); see 'tide ctl table list'");
    }
    SortedMap<String, String> next = new TreeMap<>(tableProperties.getOrDefault(tableId, Map.of()));
    for (String key : unset) {
      if (!TableSettings.KEYS.contains(key)) {
        throw new IllegalArgumentException(op + " refused: cannot unset unknown table property '" + key + "'; known properties are "
            + TableSettings.KEYS);
      }
      next.remove(key);
    }
    next.putAll(set);
    TableSettings settings;
    try {
      settings = TableSettings.parse(next);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(op + " refused: " + e.getMessage(), e);
    }
    if (!groupExists.test(settings.group())) {
      throw new IllegalArgumentException(op + " refused: " + TableSettings.GROUP_KEY + " '" + settings.group()
          + "' names no optimizer group; create it first ('tide ctl group create') or pick one of 'tide ctl group list'");
    }
    meta.putTableProperties(tableId, next);
    if (next.isEmpty()) {
      tableProperties.remove(tableId);
    } else {
      tableProperties.put(tableId, next);
    }
    queue.configureTable(tableId, settings);
    LOG.info("table {}: optimizing properties {} (group {}, quota {})", tableId, next, settings.group(), settings.quota());
    return info(tableId, CompactionPlanner.l0Stats(v));
  }

  /** Every table of the committed version, by id. */
  public synchronized List<TableInfo> tableInfos() {
    StoreVersion v = meta.committedVersion();
    Map<Long, CompactionPlanner.L0Stats> l0 = CompactionPlanner.l0Stats(v); // once for every table
    return tableIds(v).stream().map(id -> info(id, l0)).toList();
  }

  private TableInfo info(long tableId, Map<Long, CompactionPlanner.L0Stats> l0Stats) {
    CompactionPlanner.L0Stats l0 = l0Stats.getOrDefault(tableId, new CompactionPlanner.L0Stats(0, 0));
    Optional<TableLoad> load = queue.load(tableId);
    return new TableInfo(tableId, queue.settings(tableId), tableProperties.getOrDefault(tableId, Map.of()),
        load.map(TableLoad::status).orElse(TableStatus.IDLE), l0.files(), l0.bytes(), load.map(TableLoad::plannedTasks).orElse(0),
        load.map(TableLoad::occupiedThreads).orElse(0));
  }

  private static Set<Long> tableIds(StoreVersion v) {
    Set<Long> ids = new TreeSet<>();
    VersionDeltas.allSsts(v).forEach(s -> s.getTableIdsList().forEach(id -> ids.add((long) id)));
    return ids;
  }

  public Optional<TableStatus> tableStatus(long tableId) {
    return queue.status(tableId);
  }

  public OptimizingQueue.Stats stats() {
    return queue.stats();
  }

  /** Obsolete SSTs deleted from the object store so far. */
  public long deletedSsts() {
    return deletedSsts.get();
  }

  /** Obsolete SSTs waiting for readers to move past them. */
  public int obsoleteSstsWaiting() {
    return obsolete.size();
  }

  // ---------------------------------------------------------------- GroupLoadSource

  @Override
  public List<TableLoad> tables(String group) {
    return queue.tables(group);
  }

  @Override
  public List<InstanceView> instances(String group) {
    return queue.instances(group);
  }

  @Override
  public void drain(String group, String instanceId) {
    queue.drain(group, instanceId);
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  // ---------------------------------------------------------------- driver

  /**
   * One maintenance round, reading the clock once: the trigger on a new committed version, expiry of
   * silent instances and unacknowledged tasks, deletion of obsolete SSTs no reader can use any more.
   * Runs every {@link #TICK_MS} on the driver once started.
   */
  public void maintain() {
    try {
      long now = clock.nowMillis();
      observe();
      OptimizingQueue.Expiry e = queue.expire(now);
      if (!e.expiredInstances().isEmpty() || e.reclaimedTasks() > 0) {
        LOG.info("optimizers expired: {}; {} tasks back to PLANNED", e.expiredInstances(), e.reclaimedTasks());
        fire();
      }
      List<SstInfo> deleted = delete(obsolete.takeDeletable(minReaderVersion.getAsLong(), now));
      if (!deleted.isEmpty()) {
        meta.forgetObsoleteSsts(deleted.stream().map(SstInfo::getId).toList());
      }
    } catch (RuntimeException e) {
      LOG.warn("optimizing maintenance failed; retried next tick", e);
    }
  }

  /** Runs the trigger on the committed version if it changed since the last look. */
  private void observe() {
    StoreVersion v = meta.committedVersion();
    synchronized (this) {
      if (v.getId() == observedVersionId) {
        return;
      }
      observedVersionId = v.getId();
    }
    if (!queue.observe(v, clock.nowMillis()).isEmpty()) {
      fire();
    }
  }

  private void plan(long tableId) {
    CompactionPlan plan;
    try {
      plan = CompactionPlanner.plan(meta.committedVersion(), tableId, queue.options());
    } catch (RuntimeException e) {
      LOG.warn("planning of table {} failed: {}", tableId, e.getMessage());
      queue.planFailed(tableId, clock.nowMillis());
      fire();
      return;
    }
    queue.planned(plan, clock.nowMillis());
    LOG.debug("table {} planned: {} inputs, {} tasks", tableId, plan.inputs().size(), plan.tasks().size());
    fire();
  }

  private void commit(OptimizingQueue.CommitWork work) {
    List<Long> removeIds = work.inputs().stream().map(SstInfo::getId).toList();
    try {
      StoreVersion v = meta.commitCompaction(removeIds, work.outputs());
      obsolete.dropped(work.inputs(), v.getId());
      queue.committed(work.tableId(), clock.nowMillis());
      LOG.info("compaction of table {} committed as version {}: {} SSTs -> {}", work.tableId(), v.getId(), removeIds.size(),
          work.outputs().size());
    } catch (IllegalArgumentException e) {
      // Refused: nothing changed, so the outputs are garbage.
      LOG.warn("commit of the compaction of table {} refused: {}", work.tableId(), e.getMessage());
      delete(queue.commitFailed(work.tableId(), clock.nowMillis()));
    } catch (RuntimeException e) {
      // Outcome unknown (meta stopping, store connection lost): the version may hold the outputs, so
      // they stay. The table is planned again from whatever version is committed; at worst the outputs leak.
      List<SstInfo> kept = queue.commitFailed(work.tableId(), clock.nowMillis());
      LOG.warn("commit of the compaction of table {} failed with an unknown outcome; its {} outputs are kept: {}", work.tableId(),
          kept.size(), e.toString());
    }
    fire();
  }

  /** Deletes the objects of {@code ssts}; one that fails waits again (retried next round). @return those deleted */
  private List<SstInfo> delete(List<SstInfo> ssts) {
    List<SstInfo> deleted = new ArrayList<>(ssts.size());
    for (SstInfo sst : ssts) {
      try {
        objects.delete(sst.getObjectPath());
        deletedSsts.incrementAndGet();
        deleted.add(sst);
      } catch (RuntimeException e) {
        LOG.warn("deletion of obsolete sst {} failed; retried later: {}", sst.getObjectPath(), e.toString());
        obsolete.dropped(List.of(sst), 0);
      }
    }
    return deleted;
  }

  private void fire() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warn("optimizing listener failed", e);
      }
    }
  }
}
