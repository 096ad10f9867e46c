package dev.tide.meta;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.autoscale.Autoscaler;
import dev.tide.meta.autoscale.LoadTracker;
import dev.tide.meta.core.Command;
import dev.tide.meta.core.Effect;
import dev.tide.meta.core.Event;
import dev.tide.meta.core.MetaCore;
import dev.tide.meta.core.Step;
import dev.tide.meta.core.StoreWrites;
import dev.tide.meta.group.PropertiesText;
import dev.tide.meta.optimize.CompactionCommitter;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.meta.store.IdKind;
import dev.tide.meta.store.MetaStore;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.proto.stream.ActorLoad;
import dev.tide.proto.stream.StreamServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta role's driver: one thread that owns the clock, the meta store and the channels to compute
 * nodes, and runs the {@link MetaCore}. It reads the clock once per step, hands the core each event
 * (RPCs and API calls enqueue them) and polls it at the deadline the core returns, then does what the
 * core's effects say, in order: a store transaction, an RPC to a worker (whose outcome goes back to
 * the core), a reply to a caller.
 *
 * <p>A store transaction that fails stops the step: nothing after it runs, every waiting caller is
 * told to retry, and the core is rebuilt from what the store holds, exactly as a restarted meta would
 * be (it then recovers).
 *
 * <p>Thread-safety: the public methods may be called from any thread; they enqueue work on the
 * driver and wait for its reply. The read-only views ({@link #stats}, {@link #committedVersion},
 * {@link #workerHealth}) do not wait.
 */
public final class Meta implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Meta.class);
  /** State-table ids reserved per job. */
  public static final int TABLES_PER_JOB = MetaCore.TABLES_PER_JOB;
  private static final long BUILD_DEADLINE_MS = 60_000;
  private static final long CALL_DEADLINE_MS = 30_000;

  private final Config config;
  private final Clock clock;
  private final Function<String, ManagedChannel> connector;
  private final MetaStore store;
  private final SstIds sstIds;
  private final LoadTracker loads = new LoadTracker(10 * 60_000L);
  private final Autoscaler autoscaler;
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final ConcurrentHashMap<Long, CompletableFuture<Object>> waiting = new ConcurrentHashMap<>();
  private final AtomicLong requestIds = new AtomicLong();
  private final Thread driver;
  private volatile boolean running = true;

  // Driver-thread state.
  private MetaCore core;
  private long runId;
  private final Map<Integer, ManagedChannel> channels = new HashMap<>();

  // Published after every step for readers on other threads.
  private volatile StoreVersion committedView;
  private volatile MetaStats stats;
  private volatile List<MetaCore.WorkerHealth> health = List.of();
  private final java.util.List<LongConsumer> barrierListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final EventLog eventLog = new EventLog(1000);
  private String recovering; // driver thread: the recovery reason last published

  /**
   * A meta over {@code store}, which the caller keeps owning (and closes after {@link #close}). The
   * stored catalog is loaded here; when it holds jobs or workers, meta starts in recovery.
   */
  public Meta(Config config, Clock clock, Function<String, ManagedChannel> connector, MetaStore store) {
    this.config = config;
    this.clock = clock;
    this.connector = connector;
    this.store = java.util.Objects.requireNonNull(store, "store");
    this.sstIds = new SstIds(store);
    this.runId = clock.nowMillis();
    this.core = new MetaCore(config, store.load(), runId, clock.nowMillis());
    publish();
    this.driver = new Thread(this::drive, "meta-driver");
    this.driver.setDaemon(true);
    this.autoscaler = new Autoscaler(this, store, config, clock);
  }

  public void start() {
    driver.start();
    autoscaler.start();
  }

  /** The job autoscaler; it scales only jobs whose intent hands them over. */
  public Autoscaler autoscaler() {
    return autoscaler;
  }

  @Override
  public void close() {
    autoscaler.close();
    running = false;
    driver.interrupt();
    try {
      driver.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    channels.values().forEach(ManagedChannel::shutdownNow);
    failWaiting("meta is shutting down");
  }

  // ---------------------------------------------------------------- API (any thread)

  /** Sends {@code command} to the core and waits for its reply; the core's exceptions are rethrown. */
  @SuppressWarnings("unchecked")
  private <T> T call(Command command) {
    if (!running) {
      throw new IllegalStateException("meta is shutting down");
    }
    long id = requestIds.incrementAndGet();
    CompletableFuture<Object> f = new CompletableFuture<>();
    waiting.put(id, f);
    events.add(new Event.Request(id, command));
    try {
      return (T) f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for meta", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      waiting.remove(id);
    }
  }

  public int registerWorker(String address, int slots) {
    return this.<Command.Registered>call(new Command.RegisterWorker(address, slots)).workerId();
  }

  /** Registers a worker; also returns the committed version it starts from. */
  public Command.Registered register(String address, int slots) {
    return register(address, slots, "");
  }

  /** Registers a worker the compute pool launched for {@code resourceId} ({@code ""}: started by hand). */
  public Command.Registered register(String address, int slots, String resourceId) {
    return call(new Command.RegisterWorker(address, slots, resourceId));
  }

  public Command.JobIds allocateJobIds() {
    return call(new Command.AllocateJobIds());
  }

  /** Places and builds a compiled job; returns once its actors are built (its sources start at the next barrier). */
  public void createJob(JobDefinition def) {
    call(new Command.CreateJob(def));
  }

  /** Stops a job's actors with the next barrier and removes it from the catalog. */
  public void dropJob(String name) {
    call(new Command.DropJob(name));
  }

  /** Stores a SQL catalog object (see {@link Command.PutCatalog}). */
  public void putCatalog(dev.tide.meta.store.CatalogRecord record, boolean replace) {
    call(new Command.PutCatalog(record, replace));
  }

  /** Forgets a SQL catalog object; refused while others depend on it. Returns whether it was stored. */
  public boolean dropCatalog(String name) {
    return call(new Command.DropCatalog(name));
  }

  /** Writes rows into a table job; returns the epoch they committed in (see {@link Command.Dml}). */
  public long dml(String job, dev.tide.proto.stream.Dml dml) {
    return this.<Long>call(new Command.Dml(job, dml));
  }

  /** The SQL catalog's objects by name. */
  public java.util.SortedMap<String, dev.tide.meta.store.CatalogRecord> catalog() {
    return call(new Command.Catalog());
  }

  /** Pauses (or resumes) a job's sources at the next barrier; barriers keep flowing. Returns whether it changed. */
  public boolean setPaused(String name, boolean paused) {
    boolean changed = call(new Command.SetPaused(name, paused));
    if (changed) {
      eventLog.record(clock.nowMillis(), paused ? "pause" : "resume", name, "requested");
    }
    return changed;
  }

  /**
   * Applies a reschedule, resolved against the job as it is when meta runs it: derives the target
   * layout, builds the actors it adds and injects one barrier carrying the Update mutation. Returns
   * once that barrier committed (at once for a dry run or a change that moves nothing). Bad requests
   * change nothing; a reschedule of a job whose previous one is in flight is refused.
   */
  public RescheduleResult reschedule(RescheduleRequest req) {
    RescheduleResult r = call(new Command.Reschedule(req.job(), req.change(), req.dryRun()));
    if (r.applied()) {
      eventLog.record(clock.nowMillis(), "reschedule", req.job(), "actors " + r.actorsBefore() + " -> " + r.actorsAfter() + ", "
          + r.diff().movedVnodes() + " vnodes and " + r.diff().movedSplits() + " splits moved; intent " + r.intent().render());
    }
    return r;
  }

  /** Marks a worker draining: its actors are migrated off, then it is told to leave. */
  public void drainWorker(int workerId) {
    call(new Command.DrainWorker(workerId));
    eventLog.record(clock.nowMillis(), "drain", "worker " + workerId, "requested: its actors migrate off, then it leaves");
  }

  /** Recent reschedules, recoveries, pauses, resumes and drains, with their reasons; others may record theirs too. */
  public EventLog events() {
    return eventLog;
  }

  /** A consistent snapshot for tools and scaling policies. */
  public ClusterSnapshot snapshot() {
    return call(new Command.Snapshot());
  }

  public Map<String, JobDefinition> jobs() {
    Map<String, JobDefinition> out = new TreeMap<>();
    snapshot().jobs().forEach((name, j) -> out.put(name, j.definition()));
    return out;
  }

  public JobLayout layout(String jobName) {
    ClusterSnapshot.JobView j = snapshot().jobs().get(jobName);
    if (j == null) {
      throw new IllegalArgumentException("unknown job '" + jobName + "'; jobs: " + jobs().keySet());
    }
    return j.layout();
  }

  /** The state table of a digest sink (its rows add up to the digest). */
  public Optional<TableCatalog> digest(String name) {
    return table(name, TableCatalog::getIsDigest);
  }

  /** The catalog entry of a materialized view. */
  public Optional<TableCatalog> view(String name) {
    return table(name, TableCatalog::getIsMv);
  }

  private Optional<TableCatalog> table(String name, java.util.function.Predicate<TableCatalog> kind) {
    for (JobDefinition def : jobs().values()) {
      for (TableCatalog t : def.getTablesList()) {
        if (kind.test(t) && t.getName().equals(name)) {
          return Optional.of(t);
        }
      }
    }
    return Optional.empty();
  }

  /** Alive workers (active or draining), ascending ids. */
  public List<Worker> workers() {
    return snapshot().workers();
  }

  /** Adds {@code listener}, called on the driver thread with the inject-to-commit latency of every committed barrier. */
  public void onBarrierCommitted(LongConsumer listener) {
    barrierListeners.add(listener);
  }

  /** The clock meta's timestamps (heartbeats, barriers) are read from. */
  public Clock clock() {
    return clock;
  }

  /** Every known worker's health as of its last heartbeat; does not wait for the driver. */
  public List<MetaCore.WorkerHealth> workerHealth() {
    return health;
  }

  public StoreVersion committedVersion() {
    return committedView;
  }

  public MetaStats stats() {
    return stats;
  }

  /** Reserves {@code count} consecutive SST ids (for a compute node's uploads). Called from RPC threads. */
  public long allocateSstIds(int count) {
    return sstIds.take(count);
  }

  /**
   * A worker reports that it completed {@code epoch} of a barrier of meta run {@code runId}, with
   * what its actors did in the epoch. Called from RPC threads.
   */
  public void collected(int workerId, long runId, long epoch, List<SstInfo> ssts, List<ActorLoad> actorLoads) {
    loads.record(clock.nowMillis(), epoch, actorLoads);
    events.add(new Event.Collected(workerId, runId, epoch, ssts));
  }

  /** Every actor of a worker passed a settling barrier (its collection follows after the upload). Called from RPC threads. */
  public void passed(int workerId, long runId, long epoch) {
    events.add(new Event.Passed(workerId, runId, epoch));
  }

  /** The load signals of the jobs' fragments, as the workers reported them with each epoch. */
  public LoadTracker loads() {
    return loads;
  }

  /**
   * A worker's heartbeat, stamped with its arrival time: what the worker must do next. Called from
   * RPC threads.
   */
  public Command.Verdict heartbeat(int workerId, int actors, long minReaderVersion) {
    return call(new Command.Heartbeat(workerId, actors, minReaderVersion, clock.nowMillis()));
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
    for (MetaCore.WorkerHealth w : health) {
      if (w.alive() && w.minReaderVersion() > 0) {
        min = Math.min(min, w.minReaderVersion());
      }
    }
    return min;
  }

  /** A source actor's bounded input ended: the next barrier comes as soon as the in-flight limit allows. Called from RPC threads. */
  public void barrierRequested(int workerId, long actorId) {
    events.add(new Event.BarrierRequested(workerId, actorId));
  }

  /** A worker reports a failure of one of its actors ({@code actorId >= 0}) or of itself. Called from RPC threads. */
  public void failed(int workerId, long actorId, String error) {
    events.add(new Event.Failed(workerId, actorId, error));
  }

  /**
   * Commits a compaction result as one state-store version change: removes {@code removeSstIds} and
   * adds {@code outputs} to L1, durably, then installs the new version on every live compute node
   * before returning. Checkpoint commits interleave freely.
   *
   * @throws IllegalArgumentException if the change does not apply to the current version; nothing changes
   */
  public StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs) {
    return call(new Command.CommitCompaction(removeSstIds, outputs));
  }

  /** This meta as the optimizing service sees it. */
  public CompactionCommitter compactionCommitter() {
    return new CompactionCommitter() {
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
    long deadline = run(core.start(clock.nowMillis()));
    while (running) {
      try {
        long now = clock.nowMillis();
        if (now >= deadline) {
          deadline = run(core.poll(now));
        }
        Event ev = events.poll(Math.max(1, deadline - clock.nowMillis()), TimeUnit.MILLISECONDS);
        while (ev != null) {
          deadline = run(core.handle(clock.nowMillis(), ev));
          ev = events.poll();
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.error("meta driver step failed; rebuilding meta's state from the store", e);
        deadline = restartCore("meta driver step failed: " + e);
      }
    }
  }

  /** Executes a step's effects in order, then hands the core the calls' outcomes; returns the next deadline. */
  private long run(Step step) {
    ArrayDeque<Event> outcomes = new ArrayDeque<>();
    long deadline = execute(step, outcomes);
    while (!outcomes.isEmpty()) {
      deadline = execute(core.handle(clock.nowMillis(), outcomes.poll()), outcomes);
    }
    return deadline;
  }

  private long execute(Step step, ArrayDeque<Event> outcomes) {
    for (Effect e : step.effects()) {
      if (e instanceof Effect.Persist p) {
        try {
          StoreWrites.apply(store, p.write());
        } catch (RuntimeException ex) {
          LOG.error("meta store write {} failed; rebuilding meta's state from the store", p.write().getClass().getSimpleName(), ex);
          outcomes.clear();
          return restartCore("meta store write failed: " + ex.getMessage());
        }
      } else if (e instanceof Effect.Call c) {
        outcomes.add(rpc(c));
      } else if (e instanceof Effect.Reply r) {
        CompletableFuture<Object> f = waiting.get(r.requestId());
        if (f != null) {
          if (r.error() == null) {
            f.complete(r.value());
          } else {
            f.completeExceptionally(r.error());
          }
        }
      } else if (e instanceof Effect.Connect c) {
        ManagedChannel old = channels.put(c.workerId(), connector.apply(c.address()));
        if (old != null) {
          old.shutdownNow();
        }
      } else if (e instanceof Effect.Disconnect d) {
        ManagedChannel ch = channels.remove(d.workerId());
        if (ch != null) {
          ch.shutdownNow();
        }
      } else if (e instanceof Effect.Committed c) {
        barrierListeners.forEach(l -> l.accept(c.barrierLatencyMs()));
      }
    }
    publish();
    return step.nextDeadlineMs();
  }

  private Event.CallDone rpc(Effect.Call c) {
    ManagedChannel ch = channels.get(c.workerId());
    if (ch == null) {
      return new Event.CallDone(c.token(), c.workerId(), "no channel to worker " + c.workerId(), true);
    }
    try {
      StreamServiceGrpc.StreamServiceBlockingStub stub = StreamServiceGrpc.newBlockingStub(ch);
      Effect.Rpc rpc = c.rpc();
      if (rpc instanceof Effect.Rpc.Build b) {
        stub.withDeadlineAfter(BUILD_DEADLINE_MS, TimeUnit.MILLISECONDS).buildActors(b.request());
      } else if (rpc instanceof Effect.Rpc.Inject i) {
        stub.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS).injectBarrier(i.request());
      } else if (rpc instanceof Effect.Rpc.CommitVersion v) {
        stub.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS).commitVersion(v.request());
      } else if (rpc instanceof Effect.Rpc.Reset r) {
        stub.withDeadlineAfter(BUILD_DEADLINE_MS, TimeUnit.MILLISECONDS).reset(r.request());
      }
      return Event.CallDone.ok(c.token(), c.workerId());
    } catch (StatusRuntimeException ex) {
      Status.Code code = ex.getStatus().getCode();
      boolean unreachable = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED || code == Status.Code.CANCELLED;
      String why = ex.getStatus().getDescription() == null ? code.toString() : code + ": " + ex.getStatus().getDescription();
      return new Event.CallDone(c.token(), c.workerId(), why, unreachable);
    }
  }

  /** Discards the core and builds a new one from the store, as a restarted meta; returns its first deadline. */
  private long restartCore(String why) {
    failWaiting("meta restarted its control plane (" + why + "); retry");
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
    while (running) {
      try {
        runId = Math.max(runId + 1, clock.nowMillis());
        core = new MetaCore(config, store.load(), runId, clock.nowMillis());
        return run(core.start(clock.nowMillis()));
      } catch (RuntimeException e) {
        LOG.error("meta cannot load its state from {}; retrying in 1 s", store.describe(), e);
        try {
          Thread.sleep(1000); // the store is down: nothing else can run
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          running = false;
        }
      }
    }
    return Long.MAX_VALUE;
  }

  private void failWaiting(String why) {
    for (CompletableFuture<Object> f : waiting.values()) {
      f.completeExceptionally(new IllegalStateException(why));
    }
  }

  private void publish() {
    committedView = core.committedVersion();
    stats = core.stats();
    health = core.workerHealth();
    String reason = core.recoveryReason();
    if (reason != null && !reason.equals(recovering)) {
      eventLog.record(clock.nowMillis(), "recovery", "cluster", reason);
    }
    recovering = reason;
  }

  /** SST ids, reserved durably in blocks; compute nodes take them from RPC threads. Thread-safe. */
  private static final class SstIds {
    private static final int BLOCK = 4096;
    private final MetaStore store;
    private long next;
    private long limit;

    SstIds(MetaStore store) {
      this.store = store;
    }

    synchronized long take(int count) {
      if (limit - next < count) {
        int n = Math.max(count, BLOCK);
        next = store.allocate(IdKind.SST, n);
        limit = next + n;
      }
      long first = next;
      next += count;
      return first;
    }
  }
}
