package dev.tide.meta;

import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.common.time.Clock;
import dev.tide.meta.barrier.BarrierCoordinator;
import dev.tide.meta.group.PropertiesText;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.LayoutDiff;
import dev.tide.meta.scale.LayoutPlanner;
import dev.tide.meta.scale.RescheduleException;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.meta.store.Counters;
import dev.tide.meta.store.IdKind;
import dev.tide.meta.store.JobRecord;
import dev.tide.meta.store.LayoutUpdate;
import dev.tide.meta.store.MetaSnapshot;
import dev.tide.meta.store.MetaStore;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.meta.store.WorkerRecord;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.store.VersionDelta;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.Barrier;
import dev.tide.proto.stream.BuildActorsRequest;
import dev.tide.proto.stream.CommitVersionRequest;
import dev.tide.proto.stream.InjectBarrierRequest;
import dev.tide.proto.stream.Mutation;
import dev.tide.proto.stream.Pause;
import dev.tide.proto.stream.ResetRequest;
import dev.tide.proto.stream.Stop;
import dev.tide.proto.stream.Update;
import dev.tide.proto.stream.StreamServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta role: catalog of jobs and their layouts, cluster membership, barrier injection,
 * checkpoint commit of the state-store version, and recovery.
 *
 * <p>One driver thread owns all state; RPC handlers and API calls enqueue work on it. Each step of
 * the driver reads the clock once. Recovery (after an actor failure or a lost worker) resets every
 * live worker to the last committed version, moves actors off lost workers and rebuilds them;
 * sources then replay from their committed offsets.
 *
 * <p>The catalog is durable in a {@link MetaStore}: every change is written on the driver thread
 * before meta acts on it, and a reschedule's layout (with its intent) is committed together with the
 * version of the barrier that carried it. A meta started on a non-empty store recovers: it resets
 * every stored worker to the committed version and rebuilds the stored layouts.
 */
public final class Meta implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Meta.class);
  /** State-table ids reserved per job. */
  public static final int TABLES_PER_JOB = 1000;

  private static final class WorkerState {
    final Worker worker;
    final ManagedChannel channel;
    final StreamServiceGrpc.StreamServiceBlockingStub stub;
    volatile boolean alive = true;
    volatile boolean draining;
    /** Last heartbeat (or registration, or this meta's start), read and written on any thread. */
    volatile long lastHeartbeatMs;
    volatile int actors;
    /** The oldest state-store version the node's readers use, as of its last heartbeat; 0 before the first. */
    volatile long minReaderVersion;

    WorkerState(Worker worker, ManagedChannel channel, long nowMs) {
      this.worker = worker;
      this.channel = channel;
      this.stub = StreamServiceGrpc.newBlockingStub(channel);
      this.lastHeartbeatMs = nowMs;
    }
  }

  private static final class JobEntry {
    final JobDefinition def;
    JobLayout layout;
    JobIntent intent;
    boolean paused;
    /** Previous epoch of the barrier carrying this job's reschedule until it commits; 0 when none is in flight. */
    long reschedulingEpoch;

    JobEntry(JobDefinition def, JobLayout layout, JobIntent intent) {
      this.def = def;
      this.layout = layout;
      this.intent = intent;
    }
  }

  /**
   * Ids of one kind handed out from blocks reserved durably in the store, so that a restarted meta
   * continues above every id it may have used. Thread-safe (SST ids are allocated from RPC threads).
   */
  private static final class IdBlocks {
    private final MetaStore store;
    private final IdKind kind;
    private final int blockSize;
    private long next;
    private long limit;

    IdBlocks(MetaStore store, IdKind kind, int blockSize) {
      this.store = store;
      this.kind = kind;
      this.blockSize = blockSize;
    }

    /** The next {@code count} consecutive ids, reserved durably. */
    synchronized long take(int count) {
      if (limit - next < count) {
        int n = Math.max(count, blockSize);
        next = store.allocate(kind, n);
        limit = next + n;
      }
      long first = next;
      next += count;
      return first;
    }

    /** The id {@link #take} would hand out next, reserving a block first if none is left. */
    synchronized long peek() {
      if (next >= limit) {
        next = store.allocate(kind, blockSize);
        limit = next + blockSize;
      }
      return next;
    }

    /** Marks every id below {@code end} (from {@link #peek} on) used, reserving more first if needed. */
    synchronized void advanceTo(long end) {
      if (end <= next) {
        return;
      }
      if (end > limit) {
        long n = end - limit + blockSize;
        long first = store.allocate(kind, (int) n);
        if (first != limit) {
          throw new IllegalStateException(kind + " ids " + limit + ".." + (end - 1) + " were used but not reserved: the store handed out "
              + first + "; is another meta writing the same store?");
        }
        limit = first + n;
      }
      next = end;
    }

    /** The next id not yet handed out, as a counter floor for the store. */
    synchronized long floor() {
      return next;
    }
  }

  /** A mutation waiting for the next barrier; an Update also carries its job and target layout. */
  private record PendingMutation(Mutation mutation, JobEntry job, JobLayout target) {}

  private final Config config;
  private final Clock clock;
  /** Identifies this meta incarnation in barrier requests and reports (its start time). */
  private final long runId;
  private final Function<String, ManagedChannel> connector;
  private final MetaStore store;
  private final LinkedBlockingQueue<Runnable> events = new LinkedBlockingQueue<>();
  private final Thread driver;
  private volatile boolean running = true;

  // Driver-thread state.
  /** Written by the driver only; heartbeats read it from RPC threads. */
  private final ConcurrentSkipListMap<Integer, WorkerState> workers = new ConcurrentSkipListMap<>();
  private final TreeMap<Integer, JobEntry> jobs = new TreeMap<>();
  private final List<PendingMutation> pendingMutations = new ArrayList<>();
  private final List<Integer> droppingJobs = new ArrayList<>();
  private final BarrierCoordinator barriers;
  private StoreVersion version;
  private long lastCurrEpoch = -1;
  private long nextInjectMs;
  private String recoveryReason;
  private boolean recoveryWaitLogged;
  private final IdBlocks workerIds;
  private final IdBlocks actorIds;
  private final IdBlocks jobIds;
  private final IdBlocks sstIds;
  private long committedBarriers;
  private long recoveries;
  private long membershipChangedMs;

  private volatile StoreVersion committedView;
  private volatile java.util.function.LongConsumer barrierLatencyListener = ms -> {};
  private volatile MetaStats stats = new MetaStats(0, 0, 0, 0, 0, 0, 0);

  /**
   * A meta over {@code store}, which the caller keeps owning (and closes after {@link #close}). The
   * stored catalog is loaded here; when it holds jobs or workers, meta starts in recovery.
   */
  public Meta(Config config, Clock clock, Function<String, ManagedChannel> connector, MetaStore store) {
    this.config = config;
    this.clock = clock;
    this.runId = clock.nowMillis();
    this.connector = connector;
    this.store = java.util.Objects.requireNonNull(store, "store");
    this.workerIds = new IdBlocks(store, IdKind.WORKER, 16);
    this.actorIds = new IdBlocks(store, IdKind.ACTOR, 1024);
    this.jobIds = new IdBlocks(store, IdKind.JOB, 16);
    this.sstIds = new IdBlocks(store, IdKind.SST, 4096);
    MetaSnapshot snap = store.load();
    this.version = snap.version();
    this.committedView = version;
    this.barriers = new BarrierCoordinator(version.getMaxCommittedEpoch() + 1);
    for (JobRecord r : snap.jobs().values()) {
      JobEntry j = new JobEntry(r.definition(), r.layout(), r.intent());
      j.paused = r.paused();
      jobs.put(r.jobId(), j);
    }
    for (WorkerRecord r : snap.workers().values()) {
      WorkerState w = new WorkerState(r.worker(), connector.apply(r.worker().address()), clock.nowMillis());
      w.draining = r.draining();
      workers.put(r.id(), w);
    }
    if (!jobs.isEmpty() || !workers.isEmpty()) {
      recoveryReason = "meta restarted";
      LOG.info("meta restarted from {}: {} jobs, {} workers, committed epoch {}", store.describe(), jobs.size(), workers.size(),
          version.getMaxCommittedEpoch());
    }
    this.driver = new Thread(this::drive, "meta-driver");
    this.driver.setDaemon(true);
  }

  public void start() {
    long now = clock.nowMillis();
    workers.values().forEach(w -> w.lastHeartbeatMs = now); // stored workers get a full timeout to reconnect
    driver.start();
  }

  @Override
  public void close() {
    running = false;
    driver.interrupt();
    try {
      driver.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.values().forEach(w -> w.channel.shutdownNow());
  }

  // ---------------------------------------------------------------- API (any thread)

  /** Runs {@code work} on the driver thread and returns its result; its exceptions are rethrown. */
  private <T> T call(Callable<T> work) {
    CompletableFuture<T> f = new CompletableFuture<>();
    events.add(() -> {
      try {
        f.complete(work.call());
      } catch (Throwable t) {
        f.completeExceptionally(t);
      }
    });
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for meta", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  public int registerWorker(String address, int slots) {
    return call(() -> {
      int id = (int) workerIds.take(1);
      Worker w = new Worker(id, address, slots);
      store.putWorker(new WorkerRecord(w, false));
      workers.put(id, new WorkerState(w, connector.apply(address), clock.nowMillis()));
      membershipChangedMs = clock.nowMillis();
      LOG.info("worker {} registered at {} with {} slots", id, address, slots);
      return id;
    });
  }

  /** A job id and the first of its {@link #TABLES_PER_JOB} state-table ids. */
  public record JobIds(int jobId, int tableIdBase) {}

  public JobIds allocateJobIds() {
    return call(() -> {
      int id = (int) jobIds.take(1);
      return new JobIds(id, id * TABLES_PER_JOB);
    });
  }

  /** Places and builds a compiled job; its sources start at its first barrier, injected at once. */
  public void createJob(JobDefinition def) {
    call(() -> {
      for (JobEntry j : jobs.values()) {
        if (j.def.getName().equals(def.getName())) {
          throw new IllegalArgumentException("a job named '" + def.getName() + "' already exists; drop it first");
        }
      }
      int fixed = config.get(MetaOptions.DEFAULT_PARALLELISM);
      JobIntent intent = fixed == 0 ? JobIntent.adaptive() : new JobIntent(new Intent.Fixed(fixed), new java.util.TreeMap<>());
      List<Worker> schedulable = schedulableWorkers();
      int parallelism = intent.job().resolve(schedulable.stream().mapToInt(Worker::slots).sum());
      JobLayout layout = Layouts.initial(def, schedulable, parallelism, () -> actorIds.take(1));
      JobEntry entry = new JobEntry(def, layout, intent);
      store.putJob(new JobRecord(def, intent, layout, false));
      try {
        buildActors(entry);
      } catch (RuntimeException e) {
        store.deleteJob(def.getJobId());
        throw e;
      }
      jobs.put(def.getJobId(), entry);
      nextInjectMs = clock.nowMillis(); // a source emits nothing before its first barrier: no reason to wait for the interval
      LOG.info("job '{}' created: {} fragments, {} actors on workers {}", def.getName(), def.getFragmentsCount(),
          layout.allActors().size(), layout.actorsPerWorker());
      return null;
    });
  }

  /** Stops a job's actors with the next barrier and removes it from the catalog. */
  public void dropJob(String name) {
    call(() -> {
      JobEntry j = jobByName(name);
      if (j.reschedulingEpoch > 0 || pendingUpdateOf(j)) {
        throw new IllegalStateException("drop of job '" + name + "' refused: a reschedule of it is in flight; retry once it commits");
      }
      List<Long> ids = j.layout.allActors().stream().map(ActorPlacement::actorId).toList();
      pendingMutations.add(new PendingMutation(Mutation.newBuilder().setStop(Stop.newBuilder().addAllActorIds(ids)).build(), null, null));
      droppingJobs.add(j.def.getJobId());
      return null;
    });
  }

  /** Pauses (or resumes) a job's sources at the next barrier; barriers keep flowing. */
  public void setPaused(String name, boolean paused) {
    call(() -> {
      JobEntry j = jobByName(name);
      if (j.paused != paused) {
        store.setPaused(j.def.getJobId(), paused);
        j.paused = paused;
        pendingMutations.add(new PendingMutation(pauseMutation(List.of(j.def.getJobId()), paused), null, null));
      }
      return null;
    });
  }

  private static Mutation pauseMutation(List<Integer> jobIds, boolean paused) {
    Mutation.Builder m = Mutation.newBuilder();
    if (paused) {
      m.setPause(Pause.newBuilder().addAllJobIds(jobIds));
    } else {
      m.setResume(dev.tide.proto.stream.Resume.newBuilder().addAllJobIds(jobIds));
    }
    return m.build();
  }

  private JobEntry jobByName(String name) {
    for (JobEntry j : jobs.values()) {
      if (j.def.getName().equals(name)) {
        return j;
      }
    }
    throw new IllegalArgumentException("unknown job '" + name + "'; jobs: " + jobs.values().stream().map(j -> j.def.getName()).toList());
  }

  public Map<String, JobDefinition> jobs() {
    return call(() -> {
      Map<String, JobDefinition> out = new TreeMap<>();
      jobs.values().forEach(j -> out.put(j.def.getName(), j.def));
      return out;
    });
  }

  public JobLayout layout(String jobName) {
    return call(() -> jobByName(jobName).layout);
  }

  /** The state table of a digest sink (its rows add up to the digest). */
  public Optional<TableCatalog> digest(String name) {
    return call(() -> {
      for (JobEntry j : jobs.values()) {
        for (TableCatalog t : j.def.getTablesList()) {
          if (t.getIsDigest() && t.getName().equals(name)) {
            return Optional.of(t);
          }
        }
      }
      return Optional.empty();
    });
  }

  /** The catalog entry of a materialized view. */
  public Optional<TableCatalog> view(String name) {
    return call(() -> {
      for (JobEntry j : jobs.values()) {
        for (TableCatalog t : j.def.getTablesList()) {
          if (t.getIsMv() && t.getName().equals(name)) {
            return Optional.of(t);
          }
        }
      }
      return Optional.empty();
    });
  }

  public List<Worker> workers() {
    return call(this::aliveWorkers);
  }

  /** Calls {@code listener} on the driver thread with the inject-to-commit latency of every committed barrier. */
  public void onBarrierCommitted(java.util.function.LongConsumer listener) {
    this.barrierLatencyListener = listener;
  }

  /** The clock meta's timestamps (heartbeats, barriers) are read from. */
  public Clock clock() {
    return clock;
  }

  /** How a registered worker is doing, as of its last heartbeat. */
  public record WorkerHealth(Worker worker, boolean alive, boolean draining, int actors, long lastHeartbeatMs) {}

  /** Every registered worker's health; reads without waiting for the driver (for status and metrics). */
  public List<WorkerHealth> workerHealth() {
    return workers.values().stream().map(w -> new WorkerHealth(w.worker, w.alive, w.draining, w.actors, w.lastHeartbeatMs)).toList();
  }

  public StoreVersion committedVersion() {
    return committedView;
  }

  public MetaStats stats() {
    return stats;
  }

  public long allocateSstIds(int count) {
    return sstIds.take(count);
  }

  /**
   * A worker reports that it completed {@code epoch} of the barrier injected by meta run
   * {@code runId}. Reports of another run (a meta before a restart: its epoch numbers may repeat)
   * are ignored. Called from RPC threads.
   */
  public void collected(int workerId, long runId, long epoch, List<SstInfo> ssts) {
    if (runId != this.runId) {
      LOG.info("ignored a report of epoch {} from worker {} made for an earlier meta run", epoch, workerId);
      return;
    }
    events.add(() -> onCollected(workerId, epoch, ssts));
  }

  /**
   * A worker's heartbeat. False when meta does not count the worker alive (it was declared lost,
   * or never registered with this catalog): the node must stop its actors and register again, as a
   * new worker. Called from RPC threads; never waits for the driver.
   */
  public boolean heartbeat(int workerId, int actors, long minReaderVersion) {
    WorkerState w = workers.get(workerId);
    if (w == null || !w.alive) {
      return false; // unknown, or declared lost: its actors are being recovered elsewhere
    }
    w.lastHeartbeatMs = clock.nowMillis();
    w.actors = actors;
    w.minReaderVersion = minReaderVersion;
    return true;
  }

  /**
   * The oldest state-store version a compute node's reader may still use, as the nodes last
   * reported it (installed, or pinned by an open scan), and at most the committed version. A node
   * that has not reported yet counts as the committed version: a scan it opens meanwhile, and one
   * opened since its last heartbeat, are covered by the SST delete grace, which outlasts a
   * heartbeat interval. Called from any thread.
   */
  public long minReaderVersion() {
    long min = committedVersion().getId();
    for (WorkerState w : workers.values()) {
      if (w.alive && w.minReaderVersion > 0) {
        min = Math.min(min, w.minReaderVersion);
      }
    }
    return min;
  }

  /**
   * A worker asks for a barrier now: the source actor {@code actorId} emitted the last rows of its
   * bounded input, which only a barrier commits. The next barrier is injected as soon as the
   * in-flight limit allows, then the interval starts over. Called from RPC threads.
   */
  public void barrierRequested(int workerId, long actorId) {
    events.add(() -> {
      LOG.debug("barrier requested by worker {}: the input of source actor {} ended", workerId, actorId);
      nextInjectMs = Math.min(nextInjectMs, clock.nowMillis());
    });
  }

  /** A worker reports a failure of one of its actors ({@code actorId >= 0}) or of itself. Called from RPC threads. */
  public void failed(int workerId, long actorId, String error) {
    String who = actorId < 0 ? "worker " + workerId : "actor " + actorId + " on worker " + workerId;
    events.add(() -> requestRecovery(who + " failed: " + error));
  }

  // ---------------------------------------------------------------- compaction commits (optimizing workload)

  /**
   * Commits a compaction result as one state-store version change on the driver thread: removes
   * {@code removeSstIds} and adds {@code outputs} to L1, durably, then installs the new version on every
   * live compute node before returning (a node that cannot be reached is marked dead, as for a
   * checkpoint). Checkpoint commits interleave freely: the delta is built on the version current at
   * commit time.
   *
   * @return the new version
   * @throws IllegalArgumentException if the change does not apply to the current version; nothing changes
   */
  public StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs) {
    return call(() -> {
      StoreVersion next = VersionDeltas.apply(version, VersionDeltas.compaction(version, removeSstIds, 1, outputs));
      java.util.Set<Long> removed = Set.copyOf(removeSstIds);
      List<SstInfo> dropped = VersionDeltas.allSsts(version).stream().filter(s -> removed.contains(s.getId())).toList();
      store.commitCompaction(next, dropped, counterFloors());
      version = next;
      committedView = next;
      for (WorkerState w : workers.values()) {
        if (w.alive) {
          try {
            w.stub.commitVersion(CommitVersionRequest.newBuilder().setVersion(next).build());
          } catch (StatusRuntimeException e) {
            markDead(w, e);
          }
        }
      }
      return next;
    });
  }

  /** This meta as the optimizing service sees it. */
  public dev.tide.meta.optimize.CompactionCommitter compactionCommitter() {
    return new dev.tide.meta.optimize.CompactionCommitter() {
      @Override
      public StoreVersion committedVersion() {
        return Meta.this.committedVersion();
      }

      @Override
      public StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs) {
        return Meta.this.commitCompaction(removeSstIds, outputs);
      }

      @Override
      public long allocateSstIds(int count) {
        return Meta.this.allocateSstIds(count);
      }

      @Override
      public List<ObsoleteSstRecord> obsoleteSsts() {
        return store.obsoleteSsts();
      }

      @Override
      public void forgetObsoleteSsts(List<Long> sstIds) {
        store.forgetObsoleteSsts(sstIds);
      }

      @Override
      public Map<Long, Map<String, String>> tableProperties() {
        Map<Long, Map<String, String>> out = new TreeMap<>();
        store.tableProperties().forEach((id, text) -> out.put(id, PropertiesText.parse(text)));
        return out;
      }

      @Override
      public void putTableProperties(long tableId, Map<String, String> properties) {
        store.putTableProperties(tableId, PropertiesText.render(properties));
      }
    };
  }

  // ---------------------------------------------------------------- driver

  private void drive() {
    while (running) {
      try {
        long now = clock.nowMillis();
        expireSilentWorkers(now);
        if (recoveryReason != null) {
          recover(now);
        } else {
          membershipStep(now);
        }
        if (recoveryReason != null) {
          // recovering: no barriers
        } else if (now >= nextInjectMs && barriers.inflightCount() < config.get(MetaOptions.MAX_INFLIGHT_BARRIERS)
            && !workers.isEmpty()) {
          inject(now);
          nextInjectMs = now + config.get(MetaOptions.BARRIER_INTERVAL).toMillis();
        }
        long waitMs = recoveryReason != null ? 100 : Math.max(1, nextInjectMs - clock.nowMillis());
        Runnable ev = events.poll(waitMs, TimeUnit.MILLISECONDS);
        while (ev != null) {
          ev.run();
          ev = events.poll();
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.error("meta driver step failed", e);
        requestRecovery("meta driver step failed: " + e);
      }
    }
  }

  private List<Worker> schedulableWorkers() {
    List<Worker> out = new ArrayList<>();
    workers.values().stream().filter(w -> w.alive && !w.draining).forEach(w -> out.add(w.worker));
    return out;
  }

  private List<Worker> aliveWorkers() {
    List<Worker> out = new ArrayList<>();
    workers.values().stream().filter(w -> w.alive).forEach(w -> out.add(w.worker));
    return out;
  }

  private void requestRecovery(String reason) {
    if (recoveryReason == null) {
      LOG.warn("recovery requested: {}", reason);
      recoveryReason = reason;
    }
  }

  /** Declares lost every alive worker whose last heartbeat is older than {@code heartbeat.timeout}. */
  private void expireSilentWorkers(long now) {
    long timeout = config.get(MetaOptions.HEARTBEAT_TIMEOUT).toMillis();
    for (WorkerState w : workers.values()) {
      if (w.alive && now - w.lastHeartbeatMs > timeout) {
        markDead(w, new IllegalStateException("no heartbeat for " + (now - w.lastHeartbeatMs) + " ms (heartbeat.timeout "
            + timeout + " ms)"));
      }
    }
  }

  private void markDead(WorkerState w, RuntimeException e) {
    if (w.alive) {
      LOG.warn("worker {} at {} is unreachable: {}", w.worker.id(), w.worker.address(), e.toString());
      w.alive = false;
      membershipChangedMs = clock.nowMillis();
    }
    requestRecovery("worker " + w.worker.id() + " lost");
  }

  private void inject(long now) {
    long prev = lastCurrEpoch < 0 ? barriers.newEpoch() : lastCurrEpoch;
    long curr = barriers.newEpoch();
    Barrier.Builder b = Barrier.newBuilder().setCurrEpoch(curr).setPrevEpoch(prev).setCheckpoint(true).setInjectTimeMs(now);
    PendingMutation pending = pendingMutations.isEmpty() ? null : pendingMutations.remove(0);
    if (pending != null) {
      b.setMutation(pending.mutation());
    }
    Barrier barrier = b.build();
    Set<Integer> targets = new TreeSet<>();
    for (WorkerState w : workers.values()) {
      if (!w.alive) {
        continue;
      }
      InjectBarrierRequest.Builder req = InjectBarrierRequest.newBuilder().setBarrier(barrier).setWorkerId(w.worker.id()).setRunId(runId);
      for (JobEntry j : jobs.values()) {
        addActors(req, j.def, j.layout, w.worker.id(), Set.of());
        if (pending != null && pending.job() == j) {
          // Actors the reschedule adds see this barrier too: it is their first.
          Set<Long> existing = new HashSet<>();
          j.layout.allActors().forEach(a -> existing.add(a.actorId()));
          addActors(req, j.def, pending.target(), w.worker.id(), existing);
        }
      }
      try {
        w.stub.injectBarrier(req.build());
        targets.add(w.worker.id());
      } catch (StatusRuntimeException e) {
        markDead(w, e);
        return;
      }
    }
    lastCurrEpoch = curr;
    barriers.injected(prev, now, targets);
    if (pending != null && pending.job() != null) {
      pending.job().layout = pending.target();
      pending.job().reschedulingEpoch = prev;
    }
    if (barrier.hasMutation() && barrier.getMutation().hasStop()) {
      for (int jobId : droppingJobs) {
        store.deleteJob(jobId);
        JobEntry j = jobs.remove(jobId);
        LOG.info("job '{}' dropped", j.def.getName());
      }
      droppingJobs.clear();
    }
  }

  /** Adds a layout's actors on one worker (except {@code skip}) to a barrier's collect and send lists. */
  private static void addActors(InjectBarrierRequest.Builder req, JobDefinition def, JobLayout layout, int worker, Set<Long> skip) {
    for (Fragment f : def.getFragmentsList()) {
      for (ActorPlacement a : layout.actors(f.getFragmentId())) {
        if (a.workerId() == worker && !skip.contains(a.actorId())) {
          req.addActorsToCollect(a.actorId());
          if (f.getHasSource()) {
            req.addActorsToSend(a.actorId());
          }
        }
      }
    }
  }

  private boolean pendingUpdateOf(JobEntry j) {
    return pendingMutations.stream().anyMatch(p -> p.job() == j);
  }

  // ---------------------------------------------------------------- rescheduling

  /**
   * Validates and applies a reschedule: derives the target layout (pure), builds the actors it adds,
   * and queues one barrier carrying the Update mutation. Bad requests change nothing. A second
   * reschedule (other than a dry run) of a job whose previous one has not committed is refused.
   */
  public RescheduleResult reschedule(RescheduleRequest req) {
    return call(() -> rescheduleNow(req));
  }

  private RescheduleResult rescheduleNow(RescheduleRequest req) {
    JobEntry j = jobByName(req.job());
    if (recoveryReason != null) {
      throw new IllegalStateException("reschedule of job '" + req.job() + "' refused: the cluster is recovering; retry shortly");
    }
    if (!req.dryRun() && (j.reschedulingEpoch > 0 || pendingUpdateOf(j))) {
      throw new IllegalStateException("reschedule of job '" + req.job() + "' refused: a previous reschedule of it is in flight"
          + (j.reschedulingEpoch > 0 ? " (epoch " + j.reschedulingEpoch + " not yet committed)" : "") + "; retry once it commits");
    }
    if (req.intent() != null && req.intent().job() instanceof Intent.Fixed f && f.parallelism() > j.def.getVnodeCount()) {
      throw new RescheduleException("scale of job '" + req.job() + "' refused: parallelism " + f.parallelism()
          + " exceeds the job's vnode count " + j.def.getVnodeCount() + "; use at most " + j.def.getVnodeCount());
    }
    long[] ids = {actorIds.peek()};
    List<Worker> schedulable = schedulableWorkers();
    JobLayout target = req.plan() != null
        ? LayoutPlanner.forPlan(j.def, j.layout, req.plan(), schedulable, () -> ids[0]++)
        : LayoutPlanner.forIntent(j.def, j.layout, req.intent(), schedulable, () -> ids[0]++);
    LayoutDiff diff = LayoutDiff.of(j.def, j.layout, target);
    if (req.dryRun()) {
      return new RescheduleResult(diff, false);
    }
    if (diff.isEmpty()) {
      if (req.intent() != null && !req.intent().equals(j.intent)) {
        store.putJob(new JobRecord(j.def, req.intent(), j.layout, j.paused));
        j.intent = req.intent();
      }
      return new RescheduleResult(diff, false);
    }
    // The new intent is stored with the new layout when the barrier carrying it commits.
    if (req.intent() != null) {
      j.intent = req.intent();
    }
    actorIds.advanceTo(ids[0]);
    Set<Long> before = new HashSet<>();
    j.layout.allActors().forEach(a -> before.add(a.actorId()));
    Set<Long> after = new HashSet<>();
    target.allActors().forEach(a -> after.add(a.actorId()));
    List<ActorInfo> infos = Layouts.actorInfos(j.def, target, workerAddresses());
    TreeMap<Integer, List<ActorInfo>> added = new TreeMap<>();
    Update.Builder update = Update.newBuilder().setJobId(j.def.getJobId());
    for (ActorInfo a : infos) {
      if (before.contains(a.getActorId())) {
        update.addActors(a);
      } else {
        update.addAddedActorIds(a.getActorId());
        added.computeIfAbsent(a.getWorkerId(), k -> new ArrayList<>()).add(a);
      }
    }
    before.stream().filter(id -> !after.contains(id)).sorted().forEach(update::addDroppedActorIds);
    for (Map.Entry<Integer, List<ActorInfo>> e : added.entrySet()) {
      WorkerState w = workers.get(e.getKey());
      try {
        w.stub.buildActors(BuildActorsRequest.newBuilder().setJob(j.def).addAllActors(e.getValue()).build());
      } catch (StatusRuntimeException ex) {
        markDead(w, ex); // the recovery that follows rebuilds the old layout; the new actors are discarded
        throw new IllegalStateException("reschedule of job '" + req.job() + "' failed: worker " + w.worker.id()
            + " could not build actors: " + ex.getStatus());
      }
    }
    pendingMutations.add(new PendingMutation(Mutation.newBuilder().setUpdate(update).build(), j, target));
    nextInjectMs = clock.nowMillis();
    LOG.info("reschedule of job '{}': {} actors -> {} (+{} -{}), {} vnodes move", j.def.getName(), before.size(), after.size(),
        update.getAddedActorIdsCount(), update.getDroppedActorIdsCount(), diff.movedVnodes());
    return new RescheduleResult(diff, true);
  }

  /** Marks a worker draining: its actors are migrated off by the membership step, then it is deregistered. */
  public void drainWorker(int workerId) {
    call(() -> {
      WorkerState w = workers.get(workerId);
      if (w == null || !w.alive) {
        throw new IllegalArgumentException("unknown worker " + workerId + "; workers: " + aliveWorkers().stream().map(Worker::id).toList());
      }
      if (!w.draining && schedulableWorkers().size() <= 1) {
        throw new IllegalStateException("drain of worker " + workerId + " refused: it is the last schedulable worker; add a worker first");
      }
      if (!w.draining) {
        store.putWorker(new WorkerRecord(w.worker, true));
        w.draining = true;
        membershipChangedMs = clock.nowMillis() - config.get(MetaOptions.SETTLE_DELAY).toMillis(); // drain at once
        LOG.info("worker {} draining", workerId);
      }
      return null;
    });
  }

  /**
   * One membership round: after the settle delay, reschedule up to a batch of jobs whose layout no
   * longer matches their intent on the schedulable workers (a worker joined or is draining); then
   * deregister draining workers that host no actor.
   */
  private void membershipStep(long now) {
    if (now - membershipChangedMs < config.get(MetaOptions.SETTLE_DELAY).toMillis()) {
      return;
    }
    int budget = config.get(MetaOptions.RESCHEDULE_BATCH);
    List<Worker> schedulable = schedulableWorkers();
    if (schedulable.isEmpty()) {
      return;
    }
    for (JobEntry j : jobs.values()) {
      if (budget == 0) {
        break;
      }
      if (j.reschedulingEpoch > 0 || pendingUpdateOf(j) || droppingJobs.contains(j.def.getJobId())) {
        continue;
      }
      long[] ids = {actorIds.peek()};
      JobLayout target;
      try {
        target = LayoutPlanner.forIntent(j.def, j.layout, j.intent, schedulable, () -> ids[0]++);
      } catch (RuntimeException e) {
        LOG.warn("membership reschedule of job '{}' skipped: {}", j.def.getName(), e.getMessage());
        continue;
      }
      if (!LayoutDiff.of(j.def, j.layout, target).isEmpty()) {
        try {
          rescheduleNow(RescheduleRequest.scale(j.def.getName(), j.intent));
        } catch (RuntimeException e) {
          LOG.warn("membership reschedule of job '{}' failed: {}", j.def.getName(), e.getMessage());
        }
        budget--;
      }
    }
    for (WorkerState w : new ArrayList<>(workers.values())) {
      if (w.draining && w.alive && jobs.values().stream().noneMatch(j -> Layouts.workersOf(j.layout).contains(w.worker.id()))
          && jobs.values().stream().allMatch(j -> j.reschedulingEpoch == 0)) {
        LOG.info("worker {} drained and deregistered", w.worker.id());
        store.deleteWorker(w.worker.id());
        workers.remove(w.worker.id());
        w.channel.shutdownNow();
      }
    }
  }

  /** A consistent snapshot for tools and scaling policies. */
  public ClusterSnapshot snapshot() {
    return call(() -> {
      Map<String, ClusterSnapshot.JobView> views = new TreeMap<>();
      for (JobEntry j : jobs.values()) {
        views.put(j.def.getName(), new ClusterSnapshot.JobView(j.def, j.intent, j.layout, j.paused,
            j.reschedulingEpoch > 0 || pendingUpdateOf(j)));
      }
      List<Integer> draining = workers.values().stream().filter(w -> w.draining).map(w -> w.worker.id()).toList();
      return new ClusterSnapshot(aliveWorkers(), draining, views, stats);
    });
  }

  private void onCollected(int workerId, long epoch, List<SstInfo> ssts) {
    if (recoveryReason != null) {
      return;
    }
    long now = clock.nowMillis();
    for (BarrierCoordinator.Committed c : barriers.collected(workerId, epoch, ssts)) {
      VersionDelta delta = VersionDelta.newBuilder().setPrevVersionId(version.getId()).setMaxCommittedEpoch(c.epoch())
          .addAllAddL0(c.ssts()).build();
      StoreVersion next = VersionDeltas.apply(version, delta);
      List<LayoutUpdate> layouts = new ArrayList<>();
      List<JobEntry> rescheduled = new ArrayList<>();
      for (JobEntry j : jobs.values()) {
        if (j.reschedulingEpoch > 0 && j.reschedulingEpoch <= c.epoch()) {
          layouts.add(new LayoutUpdate(j.def.getJobId(), j.intent, j.layout));
          rescheduled.add(j);
        }
      }
      // Durable before any worker hears of it: a crash before this line recovers the previous version and layouts.
      store.commitVersion(next, layouts, counterFloors());
      version = next;
      committedView = version;
      committedBarriers++;
      rescheduled.forEach(j -> j.reschedulingEpoch = 0);
      for (WorkerState w : workers.values()) {
        if (w.alive) {
          try {
            w.stub.commitVersion(CommitVersionRequest.newBuilder().setVersion(version).build());
          } catch (StatusRuntimeException e) {
            markDead(w, e);
          }
        }
      }
      barrierLatencyListener.accept(now - c.injectMs());
      stats = new MetaStats(c.epoch(), committedBarriers, now - c.injectMs(), barriers.inflightCount(),
          aliveWorkers().size(), jobs.size(), recoveries);
    }
  }

  private void recover(long now) {
    barriers.abort();
    pendingMutations.clear();
    jobs.values().forEach(j -> j.reschedulingEpoch = 0);
    for (int jobId : droppingJobs) {
      store.deleteJob(jobId);
      jobs.remove(jobId);
    }
    droppingJobs.clear();
    lastCurrEpoch = -1;
    for (WorkerState w : workers.values()) {
      if (w.alive) {
        try {
          w.stub.reset(ResetRequest.newBuilder().setVersion(version).build());
        } catch (StatusRuntimeException e) {
          w.alive = false;
          LOG.warn("worker {} lost during recovery: {}", w.worker.id(), e.toString());
        }
      }
    }
    List<Worker> alive = aliveWorkers();
    if (alive.isEmpty()) {
      if (!recoveryWaitLogged) {
        LOG.warn("recovery waits: no compute node is alive");
        recoveryWaitLogged = true;
      }
      return;
    }
    recoveryWaitLogged = false;
    Set<Integer> lost = new HashSet<>(workers.keySet());
    alive.forEach(w -> lost.remove(w.id()));
    try {
      for (JobEntry j : jobs.values()) {
        if (Layouts.workersOf(j.layout).stream().anyMatch(lost::contains)) {
          j.layout = Layouts.withoutWorkers(j.layout, lost, alive);
        }
        // Recovery rebuilds from scratch at the committed version, so the layout it builds becomes the
        // stored one (an uncommitted reschedule's layout, or one moved off lost workers).
        store.putJob(new JobRecord(j.def, j.intent, j.layout, j.paused));
        buildActors(j);
      }
    } catch (StatusRuntimeException e) {
      return; // a worker died while rebuilding: the next step recovers again
    }
    // The lost workers host nothing now: forget them. One that comes back hears so at its next
    // heartbeat, and registers again as a new worker.
    for (int id : lost) {
      WorkerState w = workers.remove(id);
      store.deleteWorker(id);
      w.channel.shutdownNow();
      LOG.info("lost worker {} at {} removed", id, w.worker.address());
    }
    List<Integer> paused = jobs.values().stream().filter(j -> j.paused).map(j -> j.def.getJobId()).toList();
    if (!paused.isEmpty()) {
      pendingMutations.add(new PendingMutation(pauseMutation(paused, true), null, null));
    }
    recoveries++;
    LOG.info("recovered from '{}' at committed epoch {} with workers {}", recoveryReason, version.getMaxCommittedEpoch(),
        alive.stream().map(Worker::id).toList());
    recoveryReason = null;
    nextInjectMs = now;
    stats = new MetaStats(version.getMaxCommittedEpoch(), committedBarriers, stats.barrierLatencyMs(), 0, alive.size(),
        jobs.size(), recoveries);
  }

  private Counters counterFloors() {
    return new Counters(jobIds.floor(), actorIds.floor(), workerIds.floor(), sstIds.floor());
  }

  /** Every known worker's address, by id: where its stream and exchange services are served. */
  private Map<Integer, String> workerAddresses() {
    Map<Integer, String> out = new TreeMap<>();
    workers.forEach((id, w) -> out.put(id, w.worker.address()));
    return out;
  }

  private void buildActors(JobEntry j) {
    TreeMap<Integer, List<ActorInfo>> byWorker = new TreeMap<>();
    for (ActorInfo a : Layouts.actorInfos(j.def, j.layout, workerAddresses())) {
      byWorker.computeIfAbsent(a.getWorkerId(), k -> new ArrayList<>()).add(a);
    }
    for (Map.Entry<Integer, List<ActorInfo>> e : byWorker.entrySet()) {
      WorkerState w = workers.get(e.getKey());
      try {
        w.stub.buildActors(BuildActorsRequest.newBuilder().setJob(j.def).addAllActors(e.getValue()).build());
      } catch (StatusRuntimeException ex) {
        if (ex.getStatus().getCode() == io.grpc.Status.Code.UNAVAILABLE) {
          markDead(w, ex);
        } else {
          requestRecovery("building actors of job '" + j.def.getName() + "' failed: " + ex.getStatus().getDescription());
        }
        throw ex;
      }
    }
  }
}
