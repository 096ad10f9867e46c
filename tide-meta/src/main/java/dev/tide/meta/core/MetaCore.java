package dev.tide.meta.core;

import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.MetaStats;
import dev.tide.meta.RescheduleResult;
import dev.tide.meta.barrier.BarrierCoordinator;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.LayoutDiff;
import dev.tide.meta.scale.LayoutPlanner;
import dev.tide.meta.scale.RescheduleException;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.meta.store.CatalogRecord;
import dev.tide.meta.store.IdKind;
import dev.tide.meta.store.JobRecord;
import dev.tide.meta.store.LayoutUpdate;
import dev.tide.meta.store.MetaSnapshot;
import dev.tide.meta.store.WorkerRecord;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
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
import dev.tide.proto.stream.Resume;
import dev.tide.proto.stream.Stop;
import dev.tide.proto.stream.Update;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meta's control plane as a single-threaded core without I/O: the job catalog, membership, the
 * barrier pipeline and checkpoint commit, reschedules and recovery. Time and events go in
 * ({@link #handle}, {@link #poll}); effects (persist, call a worker, reply) and the next deadline
 * come out as a {@link Step}. The driver ({@link dev.tide.meta.Meta}) owns the thread, the clock, the
 * meta store and the channels to compute nodes, and does what the effects say, in order; a seeded
 * simulation drives the same core with simulated nodes, store and time.
 *
 * <p>Invariants: every durable change is a {@link Effect.Persist} placed before the effects that act
 * on it; a job has at most one reschedule in flight, and none while it is created or dropped; a
 * reschedule's layout and intent become durable with the epoch of the barrier that carried it (or
 * with the recovery that adopted it); epochs commit in injection order; a drained worker is told to
 * leave and hosts nothing.
 *
 * <p>Thread-safety: confined to the driver's thread.
 */
public final class MetaCore {
  private static final Logger LOG = LoggerFactory.getLogger(MetaCore.class);
  /** State-table ids reserved per job. */
  public static final int TABLES_PER_JOB = 1000;
  /** How long a recovery waiting for compute nodes waits before it looks again. */
  static final long RECOVERY_RETRY_MS = 100;

  private final Config config;
  private final long runId;
  private final Effects out = new Effects();
  private final IdRanges ids;
  private final Membership members;
  private final JobCatalog jobs;
  private final BarrierPipeline barriers;
  private final TreeMap<Integer, RescheduleOp> ops = new TreeMap<>();
  private final TreeMap<String, CatalogRecord> catalog = new TreeMap<>();
  /** Requests of queued DML mutations, in queue order. */
  private final java.util.ArrayDeque<Long> queuedDml = new java.util.ArrayDeque<>();
  /** Requests of injected DML mutations by the epoch their rows are written in. */
  private final TreeMap<Long, List<Long>> injectedDml = new TreeMap<>();
  private final Recovery recovery = new Recovery();
  private StoreVersion version;
  private long committedBarriers;
  private long recoveries;
  private long lastBarrierLatencyMs = -1;

  /**
   * A core over what the store holds. When it holds jobs or workers, the core starts in recovery
   * (meta restarted): every stored worker gets a full heartbeat timeout to reconnect.
   *
   * @param runId identifies this meta incarnation in barrier requests and reports
   */
  public MetaCore(Config config, MetaSnapshot stored, long runId, long nowMs) {
    this.config = config;
    this.runId = runId;
    this.ids = new IdRanges(stored.counters(), out);
    this.version = stored.version();
    this.jobs = new JobCatalog(stored.jobs());
    this.members = new Membership(stored.workers().values(), JobCatalog.hostingWorkers(stored.jobs()), nowMs);
    this.barriers = new BarrierPipeline(version.getMaxCommittedEpoch(), nowMs);
    this.catalog.putAll(stored.catalog());
    for (Membership.Member m : members.all()) {
      if (m.state != Membership.State.LEFT) {
        out.add(new Effect.Connect(m.id(), m.worker.address()));
      }
    }
    if (!jobs.isEmpty() || members.all().iterator().hasNext()) {
      recovery.request("meta restarted");
      LOG.info("meta restarted: {} jobs, {} workers, committed epoch {}", jobs.all().size(), members.alive().size(),
          version.getMaxCommittedEpoch());
    }
  }

  /** The effects of construction (channels to the stored workers). */
  public Step start(long nowMs) {
    return step(nowMs);
  }

  // ---------------------------------------------------------------- entry points

  /** Applies one event at {@code nowMs}. */
  public Step handle(long nowMs, Event event) {
    if (event instanceof Event.Request r) {
      request(nowMs, r.requestId(), r.command());
    } else if (event instanceof Event.Collected c) {
      collected(nowMs, c);
    } else if (event instanceof Event.Passed p) {
      if (p.runId() == runId && !recovery.requested()) { // as for a collection
        barriers.passed(p.workerId(), p.epoch());
      }
    } else if (event instanceof Event.Failed f) {
      recovery.request((f.actorId() < 0 ? "worker " + f.workerId() : "actor " + f.actorId() + " on worker " + f.workerId())
          + " failed: " + f.error());
    } else if (event instanceof Event.BarrierRequested) {
      barriers.soon(nowMs);
    } else if (event instanceof Event.CallDone d) {
      callDone(nowMs, d);
    }
    return step(nowMs);
  }

  /** Runs what is due at {@code nowMs}: expiry, recovery, reconciliation, drains, the next barrier. */
  public Step poll(long nowMs) {
    long timeout = config.get(MetaOptions.HEARTBEAT_TIMEOUT).toMillis();
    for (Membership.Member m : members.silent(nowMs, timeout)) {
      lost(nowMs, m, "no heartbeat for " + (nowMs - m.lastHeartbeatMs) + " ms (heartbeat.timeout " + timeout + " ms)");
    }
    forgetDeparted(nowMs, timeout);
    if (recovery.requested()) {
      recover(nowMs);
    } else {
      reconcile(nowMs);
      finishDrains(nowMs);
      if (barriers.due(nowMs, config.get(MetaOptions.MAX_INFLIGHT_BARRIERS)) && !members.alive().isEmpty()) {
        inject(nowMs);
      }
    }
    return step(nowMs);
  }

  private Step step(long nowMs) {
    return new Step(out.drain(), nextDeadline(nowMs));
  }

  private long nextDeadline(long nowMs) {
    long next = members.nextExpiryMs(config.get(MetaOptions.HEARTBEAT_TIMEOUT).toMillis());
    if (recovery.requested()) {
      return Math.max(nowMs, Math.min(next, recovery.waiting() ? nowMs + RECOVERY_RETRY_MS : recovery.ready() ? nowMs : Long.MAX_VALUE));
    }
    if (!members.alive().isEmpty()) {
      next = Math.min(next, barriers.nextDueMs(config.get(MetaOptions.MAX_INFLIGHT_BARRIERS)));
    }
    if (!members.schedulable().isEmpty()
        && jobs.all().stream().anyMatch(j -> j.phase == JobEntry.Phase.RUNNING && j.reconciledGeneration < members.generation())) {
      next = Math.min(next, members.changedAtMs() + config.get(MetaOptions.SETTLE_DELAY).toMillis());
    }
    if (!members.inState(Membership.State.DRAINING).isEmpty()) {
      next = Math.min(next, nowMs + config.get(MetaOptions.BARRIER_INTERVAL).toMillis());
    }
    return Math.max(next, nowMs);
  }

  // ---------------------------------------------------------------- requests

  private void request(long nowMs, long id, Command c) {
    try {
      if (c instanceof Command.RegisterWorker r) {
        register(nowMs, id, r);
      } else if (c instanceof Command.Heartbeat h) {
        out.reply(id, members.heartbeat(h));
      } else if (c instanceof Command.AllocateJobIds) {
        int job = (int) ids.take(IdKind.JOB);
        out.reply(id, new Command.JobIds(job, job * TABLES_PER_JOB));
      } else if (c instanceof Command.CreateJob cj) {
        create(nowMs, id, cj.definition());
      } else if (c instanceof Command.DropJob d) {
        drop(id, d.job());
      } else if (c instanceof Command.SetPaused p) {
        setPaused(nowMs, id, p);
      } else if (c instanceof Command.Reschedule r) {
        reschedule(nowMs, id, r);
      } else if (c instanceof Command.DrainWorker d) {
        drain(nowMs, id, d.workerId());
      } else if (c instanceof Command.Snapshot) {
        out.reply(id, snapshot());
      } else if (c instanceof Command.CommitCompaction cc) {
        commitCompaction(id, cc);
      } else if (c instanceof Command.PutCatalog p) {
        putCatalog(id, p);
      } else if (c instanceof Command.DropCatalog d) {
        dropCatalog(id, d.name());
      } else if (c instanceof Command.Dml d) {
        dml(nowMs, id, d);
      } else if (c instanceof Command.Catalog) {
        out.reply(id, java.util.Collections.unmodifiableSortedMap(new TreeMap<>(catalog)));
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      out.fail(id, e); // validation precedes every change: nothing was applied
    }
  }

  private void register(long nowMs, long id, Command.RegisterWorker r) {
    if (r.address() == null || r.address().isBlank()) {
      throw new IllegalArgumentException("worker registration refused: the address is empty; register with the host:port"
          + " where the node serves its stream service");
    }
    Worker probe = new Worker(0, r.address(), r.slots()); // validates the slots before an id is taken
    for (Membership.Member m : members.alive()) {
      if (m.worker.address().equals(r.address())) {
        // One process serves an address: a node registering there again (it restarted, or meta had
        // forgotten it) no longer runs what the old registration ran.
        lost(nowMs, m, "a node registered again at its address " + r.address());
      }
    }
    Worker w = new Worker((int) ids.take(IdKind.WORKER), probe.address(), probe.slots());
    out.persist(new Effect.Write.PutWorker(new WorkerRecord(w, false, r.resourceId())));
    out.add(new Effect.Connect(w.id(), w.address()));
    members.add(w, r.resourceId(), nowMs);
    LOG.info("worker {} registered at {} with {} slots{}", w.id(), w.address(), w.slots(),
        r.resourceId().isEmpty() ? "" : " (compute pool resource " + r.resourceId() + ")");
    out.reply(id, new Command.Registered(w.id(), version));
  }

  private void create(long nowMs, long id, JobDefinition given) {
    JobDefinition def = given.getCreatedMs() > 0 ? given : given.toBuilder().setCreatedMs(nowMs).build();
    String name = def.getName();
    if (recovery.requested()) {
      throw new IllegalStateException("create of job '" + name + "' refused: the cluster is recovering (" + recovery.reason()
          + "); retry shortly");
    }
    if (jobs.nameTaken(name)) {
      throw new IllegalArgumentException("a job named '" + name + "' already exists; drop it first, or give the new one another name");
    }
    if (jobs.idTaken(def.getJobId())) {
      throw new IllegalArgumentException("create of job '" + name + "' refused: job id " + def.getJobId() + " is in use");
    }
    List<Worker> schedulable = members.schedulable();
    if (schedulable.isEmpty()) {
      throw new IllegalStateException("create of job '" + name + "' refused: no schedulable compute node; start one"
          + " (tide compute --meta ...) and retry");
    }
    int fixed = config.get(MetaOptions.DEFAULT_PARALLELISM);
    JobIntent intent = fixed == 0 ? JobIntent.adaptive() : JobIntent.fixed(fixed);
    IdRanges.Tentative actorIds = ids.tentative(IdKind.ACTOR);
    JobLayout layout = Layouts.initial(def, schedulable, intent.job().resolve(totalSlots(schedulable)), actorIds);
    ids.commit(actorIds);
    JobEntry j = new JobEntry(def, layout, intent, false, JobEntry.Phase.CREATING);
    j.createRequest = id;
    j.reconciledGeneration = members.generation();
    out.persist(new Effect.Write.PutJob(record(j)));
    jobs.add(j);
    j.pendingBuilds.addAll(build(j, layout, Set.of()));
    if (j.pendingBuilds.isEmpty()) {
      created(nowMs, j);
    }
  }

  private void created(long nowMs, JobEntry j) {
    j.phase = JobEntry.Phase.RUNNING;
    barriers.soon(nowMs); // a source emits nothing before its first barrier
    LOG.info("job '{}' created: {} fragments, {} actors on workers {}", j.name(), j.def.getFragmentsCount(),
        j.layout.allActors().size(), j.layout.actorsPerWorker());
    out.reply(j.createRequest, null);
    j.createRequest = -1;
  }

  private void drop(long id, String name) {
    JobEntry j = jobs.byName(name);
    for (dev.tide.proto.plan.TableCatalog t : j.def.getTablesList()) {
      List<String> dependents = catalog.values().stream()
          .filter(r -> r.dependsOn().contains(t.getName()) && !r.name().equals(t.getName())).map(CatalogRecord::name).toList();
      if (t.getIsMv() && !dependents.isEmpty()) {
        throw new IllegalStateException("drop of job '" + name + "' refused: " + dependents + " read its view '" + t.getName()
            + "'; drop them first (DROP MATERIALIZED VIEW ... CASCADE)");
      }
    }
    switch (j.phase) {
      case RESCHEDULING -> throw new IllegalStateException("drop of job '" + name + "' refused: a reschedule of it is in flight;"
          + " retry once it commits");
      case DROPPING -> {}
      default -> {
        List<Long> actors = j.layout.allActors().stream().map(ActorPlacement::actorId).toList();
        barriers.enqueue(new BarrierPipeline.Queued(Mutation.newBuilder().setStop(Stop.newBuilder().addAllActorIds(actors)).build(),
            null, j));
        j.phase = JobEntry.Phase.DROPPING;
      }
    }
    out.reply(id, null);
  }

  private void setPaused(long nowMs, long id, Command.SetPaused p) {
    JobEntry j = jobs.byName(p.job());
    boolean changed = j.paused != p.paused();
    if (changed) {
      out.persist(new Effect.Write.SetPaused(j.id(), p.paused()));
      j.paused = p.paused();
      barriers.enqueue(new BarrierPipeline.Queued(pauseMutation(List.of(j.id()), p.paused()), null, null));
      barriers.soon(nowMs);
    }
    out.reply(id, changed);
  }

  private static Mutation pauseMutation(List<Integer> jobIds, boolean paused) {
    Mutation.Builder m = Mutation.newBuilder();
    if (paused) {
      m.setPause(Pause.newBuilder().addAllJobIds(jobIds));
    } else {
      m.setResume(Resume.newBuilder().addAllJobIds(jobIds));
    }
    return m.build();
  }

  private void drain(long nowMs, long id, int workerId) {
    Membership.Member m = members.get(workerId);
    if (m == null || !m.alive()) {
      throw new IllegalArgumentException("drain of worker " + Integer.toUnsignedString(workerId) + " refused: unknown worker; workers: "
          + members.aliveWorkers().stream().map(Worker::id).toList());
    }
    if (m.state == Membership.State.ACTIVE) {
      if (members.schedulable().size() <= 1) {
        throw new IllegalStateException("drain of worker " + workerId + " refused: it is the last schedulable worker, its actors"
            + " would have nowhere to go; add a worker first");
      }
      out.persist(new Effect.Write.PutWorker(new WorkerRecord(m.worker, true, m.resourceId)));
      m.state = Membership.State.DRAINING;
      members.changed(nowMs - config.get(MetaOptions.SETTLE_DELAY).toMillis()); // drain at once
      LOG.info("worker {} draining", workerId);
    }
    out.reply(id, null);
  }

  // ---------------------------------------------------------------- SQL catalog

  private void putCatalog(long id, Command.PutCatalog p) {
    CatalogRecord r = p.record();
    String what = "create of " + r.kind() + " '" + r.name() + "'";
    // A view's or table's record follows its job (created first, named like its view).
    boolean hasJob = r.kind().equals("view") || r.kind().equals("table");
    if (!p.replace() && (catalog.containsKey(r.name()) || (!hasJob && jobViewNames().contains(r.name())))) {
      throw new IllegalArgumentException(what + " refused: the name is taken; drop it first or choose another name");
    }
    Set<String> views = jobViewNames();
    for (String d : r.dependsOn()) {
      if (!catalog.containsKey(d) && !views.contains(d)) {
        throw new IllegalArgumentException(what + " refused: it reads '" + d + "', which is neither a catalog object nor a view;"
            + " catalog: " + catalog.keySet());
      }
    }
    out.persist(new Effect.Write.PutCatalog(r));
    catalog.put(r.name(), r);
    out.reply(id, null);
  }

  private void dropCatalog(long id, String name) {
    List<String> dependents = catalog.values().stream().filter(r -> r.dependsOn().contains(name)).map(CatalogRecord::name).toList();
    if (!dependents.isEmpty()) {
      throw new IllegalStateException("drop of '" + name + "' refused: " + dependents + " depend on it; drop them first");
    }
    boolean stored = catalog.remove(name) != null;
    if (stored) {
      out.persist(new Effect.Write.DeleteCatalog(name));
    }
    out.reply(id, stored);
  }

  private void dml(long nowMs, long id, Command.Dml d) {
    JobEntry j = jobs.byName(d.job());
    String what = "write into '" + d.job() + "'";
    if (recovery.requested()) {
      throw new IllegalStateException(what + " refused: the cluster is recovering; retry shortly");
    }
    if (j.phase == JobEntry.Phase.CREATING || j.phase == JobEntry.Phase.DROPPING) {
      throw new IllegalStateException(what + " refused: the table is being " + (j.phase == JobEntry.Phase.CREATING ? "created" : "dropped"));
    }
    if (j.paused) {
      throw new IllegalStateException(what + " refused: its job is paused; resume it first");
    }
    Mutation m = Mutation.newBuilder().setDml(d.dml().toBuilder().setJobId(j.id())).build();
    barriers.enqueue(new BarrierPipeline.Queued(m, null, null));
    queuedDml.add(id);
    barriers.soon(nowMs);
  }

  private Set<String> jobViewNames() {
    Set<String> names = new TreeSet<>();
    for (JobEntry j : jobs.all()) {
      j.def.getTablesList().stream().filter(t -> t.getIsMv()).forEach(t -> names.add(t.getName()));
    }
    return names;
  }

  private void commitCompaction(long id, Command.CommitCompaction c) {
    StoreVersion next = VersionDeltas.apply(version, VersionDeltas.compaction(version, c.removeSstIds(), 1, c.outputs()));
    Set<Long> removed = Set.copyOf(c.removeSstIds());
    List<SstInfo> dropped = VersionDeltas.allSsts(version).stream().filter(s -> removed.contains(s.getId())).toList();
    out.persist(new Effect.Write.CommitCompaction(next, dropped));
    install(next);
    out.reply(id, next);
  }

  // ---------------------------------------------------------------- reschedules

  private void reschedule(long nowMs, long id, Command.Reschedule r) {
    JobEntry j = jobs.byName(r.job());
    String what = "reschedule of job '" + r.job() + "'";
    if (recovery.requested()) {
      throw new IllegalStateException(what + " refused: the cluster is recovering; retry shortly");
    }
    if (!r.dryRun() && j.phase != JobEntry.Phase.RUNNING) {
      throw new IllegalStateException(what + " refused: " + (j.phase == JobEntry.Phase.DROPPING ? "the job is being dropped"
          : "a previous reschedule of it is in flight" + (ops.containsKey(j.id()) && ops.get(j.id()).prevEpoch > 0
              ? " (epoch " + ops.get(j.id()).prevEpoch + " not yet committed)" : "") + "; retry once it commits"));
    }
    IdRanges.Tentative actorIds = ids.tentative(IdKind.ACTOR);
    List<Worker> schedulable = members.schedulable();
    JobIntent intent;
    JobLayout target;
    Command.Change change = r.change();
    if (change instanceof Command.Change.ApplyPlan p) {
      target = LayoutPlanner.forPlan(j.def, j.layout, p.plan(), schedulable, actorIds);
      intent = j.intent;
      for (int f : p.plan().fragments().keySet()) {
        int n = target.actors(f).size();
        if (n != j.layout.actors(f).size()) {
          intent = intent.withOverride(f, new Intent.Fixed(n)); // the operator's count is kept by reconciliation
        }
      }
    } else {
      if (change instanceof Command.Change.ScaleJob s) {
        checkVnodes(j, s.intent(), "scale of job '" + r.job() + "'");
        intent = j.intent.withJob(s.intent());
      } else if (change instanceof Command.Change.ScaleFragment s) {
        checkVnodes(j, s.intent(), "scale of fragment " + s.fragmentId() + " of job '" + r.job() + "'");
        intent = j.intent.withOverride(s.fragmentId(), s.intent());
      } else if (change instanceof Command.Change.SetAutoscale a) {
        intent = j.intent.withAutoscale(a.spec());
      } else {
        intent = ((Command.Change.SetIntent) change).intent();
        checkVnodes(j, intent.job(), what);
      }
      target = LayoutPlanner.forIntent(j.def, j.layout, intent, schedulable, actorIds);
    }
    start(nowMs, id, j, target, intent, r.dryRun(), actorIds);
  }

  private static void checkVnodes(JobEntry j, Intent intent, String what) {
    int vnodes = j.def.getVnodeCount();
    if (intent instanceof Intent.Fixed f && f.parallelism() > vnodes) {
      throw new RescheduleException(what + " refused: parallelism " + f.parallelism() + " exceeds the job's vnode count " + vnodes
          + "; ask for at most " + vnodes + ", or 'adaptive' / 'bounded(N)' to follow the cluster's slots");
    }
  }

  /** Applies a resolved reschedule: answers a dry run or a no-op at once, else builds and queues it. */
  private void start(long nowMs, long id, JobEntry j, JobLayout target, JobIntent intent, boolean dryRun,
      IdRanges.Tentative actorIds) {
    LayoutDiff diff = LayoutDiff.of(j.def, j.layout, target);
    if (dryRun || diff.isEmpty()) {
      if (!dryRun && !intent.equals(j.intent)) {
        out.persist(new Effect.Write.PutJob(new JobRecord(j.def, intent, j.layout, j.paused)));
        j.intent = intent;
      }
      if (id >= 0) {
        out.reply(id, new RescheduleResult(diff, false, j.layout.allActors().size(), dryRun ? j.intent : intent));
      }
      return;
    }
    ids.commit(actorIds);
    Set<Long> before = new HashSet<>();
    j.layout.allActors().forEach(a -> before.add(a.actorId()));
    Set<Long> after = new HashSet<>();
    target.allActors().forEach(a -> after.add(a.actorId()));
    Update.Builder update = Update.newBuilder().setJobId(j.id());
    for (ActorInfo a : Layouts.actorInfos(j.def, target, addresses())) {
      if (before.contains(a.getActorId())) {
        update.addActors(a);
      } else {
        update.addAddedActorIds(a.getActorId());
      }
    }
    before.stream().filter(a -> !after.contains(a)).sorted().forEach(update::addDroppedActorIds);
    RescheduleOp op = new RescheduleOp(id, j, target, intent, diff, Mutation.newBuilder().setUpdate(update).build());
    ops.put(j.id(), op);
    j.phase = JobEntry.Phase.RESCHEDULING;
    op.pendingBuilds.addAll(build(j, target, before));
    LOG.info("reschedule of job '{}': {} actors -> {} (+{} -{}), {} vnodes move", j.name(), before.size(), after.size(),
        update.getAddedActorIdsCount(), update.getDroppedActorIdsCount(), diff.movedVnodes());
    if (op.pendingBuilds.isEmpty()) {
      queue(nowMs, op);
    }
  }

  private void queue(long nowMs, RescheduleOp op) {
    op.stage = RescheduleOp.Stage.QUEUED;
    barriers.enqueue(new BarrierPipeline.Queued(op.update, op, null));
    barriers.soon(nowMs);
  }

  private void finish(RescheduleOp op, RuntimeException error) {
    ops.remove(op.job.id());
    op.job.phase = JobEntry.Phase.RUNNING;
    if (op.requestId >= 0) {
      if (error == null) {
        out.reply(op.requestId, op.result(true));
      } else {
        out.fail(op.requestId, error);
      }
    }
  }

  /**
   * Membership reconciliation: once membership has been unchanged for the settle delay, each job not
   * yet reconciled to the current generation is planned from its intent and rescheduled if that
   * moves anything, in bounded batches. A job is reconciled once per membership change (and after a
   * recovery), so an operator's placement is never fought between changes.
   */
  private void reconcile(long nowMs) {
    if (nowMs - members.changedAtMs() < config.get(MetaOptions.SETTLE_DELAY).toMillis()) {
      return;
    }
    List<Worker> schedulable = members.schedulable();
    if (schedulable.isEmpty()) {
      return;
    }
    int budget = config.get(MetaOptions.RESCHEDULE_BATCH);
    for (JobEntry j : List.copyOf(jobs.all())) {
      if (budget == 0) {
        break;
      }
      if (j.phase != JobEntry.Phase.RUNNING || j.reconciledGeneration >= members.generation()) {
        continue;
      }
      j.reconciledGeneration = members.generation();
      IdRanges.Tentative actorIds = ids.tentative(IdKind.ACTOR);
      JobLayout target;
      try {
        target = LayoutPlanner.forIntent(j.def, j.layout, j.intent, schedulable, actorIds);
      } catch (RuntimeException e) {
        LOG.warn("membership reschedule of job '{}' skipped: {}", j.name(), e.getMessage());
        continue;
      }
      if (!LayoutDiff.of(j.def, j.layout, target).isEmpty()) {
        start(nowMs, -1, j, target, j.intent, false, actorIds);
        budget--;
      }
    }
  }

  /** Draining workers that host nothing, with no reschedule in flight, leave. */
  private void finishDrains(long nowMs) {
    if (!ops.isEmpty()) {
      return;
    }
    Set<Integer> hosting = jobs.hostingWorkers();
    for (Membership.Member m : members.inState(Membership.State.DRAINING)) {
      if (!hosting.contains(m.id())) {
        m.state = Membership.State.LEFT;
        out.add(new Effect.Disconnect(m.id()));
        LOG.info("worker {} drained: it hosts no actor and is told to leave", m.id());
        committed(nowMs, barriers.forget(m.id()));
      }
    }
  }

  /** LEFT workers silent for a heartbeat timeout have gone: they are deleted from the store. */
  private void forgetDeparted(long nowMs, long timeoutMs) {
    for (Membership.Member m : members.inState(Membership.State.LEFT)) {
      if (nowMs - m.lastHeartbeatMs > timeoutMs) {
        out.persist(new Effect.Write.DeleteWorker(m.id()));
        members.remove(m.id());
        LOG.info("drained worker {} at {} left", m.id(), m.worker.address());
      }
    }
  }

  // ---------------------------------------------------------------- building and calls

  /** Builds the layout's actors (except {@code skip}) on their workers; returns the calls' tokens. */
  private List<Long> build(JobEntry j, JobLayout layout, Set<Long> skip) {
    TreeMap<Integer, List<ActorInfo>> byWorker = new TreeMap<>();
    for (ActorInfo a : Layouts.actorInfos(j.def, layout, addresses())) {
      if (!skip.contains(a.getActorId())) {
        byWorker.computeIfAbsent(a.getWorkerId(), k -> new ArrayList<>()).add(a);
      }
    }
    List<Long> tokens = new ArrayList<>();
    byWorker.forEach((w, actors) -> tokens.add(out.build(w,
        BuildActorsRequest.newBuilder().setJob(j.def).addAllActors(actors).setPaused(j.paused).build())));
    return tokens;
  }

  private void callDone(long nowMs, Event.CallDone d) {
    if (!d.succeeded()) {
      Membership.Member m = members.get(d.workerId());
      if (d.unreachable() && m != null) {
        lost(nowMs, m, d.failure());
      } else {
        recovery.request("a call to worker " + d.workerId() + " failed: " + d.failure());
      }
    }
    for (JobEntry j : jobs.inPhase(JobEntry.Phase.CREATING)) {
      if (j.pendingBuilds.remove(d.token())) {
        if (!d.succeeded()) {
          out.persist(new Effect.Write.DeleteJob(j.id()));
          jobs.remove(j);
          out.fail(j.createRequest, new IllegalStateException("create of job '" + j.name() + "' failed: worker " + d.workerId()
              + " could not build its actors: " + d.failure()));
        } else if (j.pendingBuilds.isEmpty()) {
          created(nowMs, j);
        }
      }
    }
    for (RescheduleOp op : List.copyOf(ops.values())) {
      if (op.pendingBuilds.remove(d.token())) {
        if (!d.succeeded()) {
          finish(op, new IllegalStateException("reschedule of job '" + op.job.name() + "' failed: worker " + d.workerId()
              + " could not build actors: " + d.failure()));
        } else if (op.pendingBuilds.isEmpty()) {
          queue(nowMs, op);
        }
      }
    }
    recovery.done(d.token(), d.succeeded());
  }

  private void lost(long nowMs, Membership.Member m, String why) {
    if (m.alive()) {
      LOG.warn("worker {} at {} is lost: {}", m.id(), m.worker.address(), why);
      m.state = Membership.State.LOST;
      members.changed(nowMs);
      recovery.restartIfRunning(); // builds of the running attempt may have gone to it
    }
    recovery.request("worker " + m.id() + " lost");
  }

  private Map<Integer, String> addresses() {
    Map<Integer, String> out = new TreeMap<>();
    members.all().forEach(m -> out.put(m.id(), m.worker.address()));
    return out;
  }

  private static int totalSlots(List<Worker> workers) {
    long slots = 0;
    for (Worker w : workers) {
      slots += w.slots();
    }
    return (int) Math.min(Integer.MAX_VALUE, slots);
  }

  // ---------------------------------------------------------------- barriers and commits

  private void inject(long nowMs) {
    long[] epochs = barriers.nextEpochs();
    long prev = epochs[0];
    long curr = epochs[1];
    Barrier.Builder b = Barrier.newBuilder().setCurrEpoch(curr).setPrevEpoch(prev).setCheckpoint(true).setInjectTimeMs(nowMs)
        .setCommittedEpoch(version.getMaxCommittedEpoch());
    BarrierPipeline.Queued q = barriers.nextMutation();
    boolean settles = barriers.settling();
    if (q != null) {
      Mutation m = q.mutation();
      if (m.hasUpdate()) { // new source actors start paused exactly when the job's running ones are
        m = m.toBuilder().setUpdate(m.getUpdate().toBuilder().setPaused(q.op().job.pausedInBarriers)).build();
      }
      b.setMutation(m);
      for (JobEntry j : jobs.all()) {
        if (m.hasPause() && m.getPause().getJobIdsList().contains(j.id())) {
          j.pausedInBarriers = true;
        } else if (m.hasResume() && m.getResume().getJobIdsList().contains(j.id())) {
          j.pausedInBarriers = false;
        }
      }
    }
    Barrier barrier = b.build();
    if (q != null && q.mutation().hasDml()) {
      injectedDml.computeIfAbsent(curr, e -> new ArrayList<>()).add(queuedDml.poll()); // its rows are written in epoch curr
    }
    RescheduleOp op = q == null ? null : q.op();
    Set<Integer> targets = new TreeSet<>();
    for (Membership.Member m : members.alive()) {
      InjectBarrierRequest.Builder req = InjectBarrierRequest.newBuilder().setBarrier(barrier).setWorkerId(m.id()).setRunId(runId)
          .setReportPassed(settles);
      for (JobEntry j : jobs.all()) {
        if (j.phase == JobEntry.Phase.CREATING) {
          continue;
        }
        addActors(req, j.def, j.layout, m.id(), Set.of());
        if (op != null && op.job == j) {
          Set<Long> existing = new HashSet<>(); // the actors the reschedule adds see this barrier too: it is their first
          j.layout.allActors().forEach(a -> existing.add(a.actorId()));
          addActors(req, j.def, op.target, m.id(), existing);
        }
      }
      out.call(m.id(), new Effect.Rpc.Inject(req.build()));
      targets.add(m.id());
    }
    barriers.injected(prev, curr, nowMs, config.get(MetaOptions.BARRIER_INTERVAL).toMillis(), targets);
    if (op != null) {
      op.job.layout = op.target;
      op.job.intent = op.intent;
      op.stage = RescheduleOp.Stage.INJECTED;
      op.prevEpoch = prev;
    }
    if (q != null && q.dropping() != null) {
      out.persist(new Effect.Write.DeleteJob(q.dropping().id()));
      jobs.remove(q.dropping());
      LOG.info("job '{}' dropped", q.dropping().name());
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

  private void collected(long nowMs, Event.Collected c) {
    if (c.runId() != runId) {
      LOG.info("ignored a report of epoch {} from worker {} made for an earlier meta run", c.epoch(), c.workerId());
      return;
    }
    if (recovery.requested()) {
      return;
    }
    committed(nowMs, barriers.collected(c.workerId(), c.epoch(), c.ssts()));
  }

  private void committed(long nowMs, List<BarrierCoordinator.Committed> committed) {
    for (BarrierCoordinator.Committed c : committed) {
      VersionDelta delta = VersionDelta.newBuilder().setPrevVersionId(version.getId()).setMaxCommittedEpoch(c.epoch())
          .addAllAddL0(c.ssts()).build();
      StoreVersion next = VersionDeltas.apply(version, delta);
      List<LayoutUpdate> layouts = new ArrayList<>();
      List<RescheduleOp> done = new ArrayList<>();
      for (RescheduleOp op : ops.values()) {
        if (op.stage == RescheduleOp.Stage.INJECTED && op.prevEpoch <= c.epoch()) {
          layouts.add(new LayoutUpdate(op.job.id(), op.job.intent, op.job.layout));
          done.add(op);
        }
      }
      out.persist(new Effect.Write.CommitVersion(next, layouts)); // durable before any worker hears of it
      install(next);
      committedBarriers++;
      lastBarrierLatencyMs = nowMs - c.injectMs();
      out.add(new Effect.Committed(c.epoch(), lastBarrierLatencyMs));
      done.forEach(op -> finish(op, null));
      while (!injectedDml.isEmpty() && injectedDml.firstKey() <= c.epoch()) {
        Map.Entry<Long, List<Long>> e = injectedDml.pollFirstEntry();
        e.getValue().forEach(request -> out.reply(request, e.getKey()));
      }
    }
  }

  /** Makes {@code next} the committed version and tells every alive worker. */
  private void install(StoreVersion next) {
    version = next;
    for (Membership.Member m : members.alive()) {
      out.call(m.id(), new Effect.Rpc.CommitVersion(CommitVersionRequest.newBuilder().setVersion(next).build()));
    }
  }

  // ---------------------------------------------------------------- recovery

  /**
   * One step of recovery. An attempt aborts what was in flight, resets every alive worker to the
   * committed version, moves actors off lost workers, persists and rebuilds every job's layout, then
   * forgets the lost workers. A failure during an attempt starts a new one; with no alive worker the
   * recovery waits.
   */
  private void recover(long nowMs) {
    switch (recovery.stage()) {
      case IDLE -> {
        abortInFlight();
        List<Membership.Member> alive = members.alive();
        if (alive.isEmpty()) {
          recovery.waitForWorkers();
          return;
        }
        Set<Long> tokens = new HashSet<>();
        for (Membership.Member m : alive) {
          tokens.add(out.call(m.id(), new Effect.Rpc.Reset(ResetRequest.newBuilder().setVersion(version).build())));
        }
        recovery.resetting(tokens);
      }
      case WAITING -> {
        if (!members.alive().isEmpty()) {
          recovery.restart();
          recover(nowMs);
        }
      }
      case RESETTING -> {
        if (recovery.callsDone()) {
          rebuild();
        }
      }
      case BUILDING -> {
        if (recovery.callsDone()) {
          recovered(nowMs);
        }
      }
    }
  }

  /** Aborts creations, queued reschedules and drops; an injected reschedule's target is adopted. */
  private void abortInFlight() {
    barriers.abort();
    List<Long> dml = new ArrayList<>(queuedDml);
    injectedDml.values().forEach(dml::addAll);
    queuedDml.clear();
    injectedDml.clear();
    for (long request : dml) {
      out.fail(request, new IllegalStateException("write was interrupted by a recovery (" + recovery.reason()
          + ") before it committed; nothing was written, retry"));
    }
    for (JobEntry j : jobs.inPhase(JobEntry.Phase.CREATING)) {
      out.persist(new Effect.Write.DeleteJob(j.id()));
      jobs.remove(j);
      out.fail(j.createRequest, new IllegalStateException("create of job '" + j.name() + "' was interrupted by a recovery ("
          + recovery.reason() + "); nothing was created, retry"));
    }
    for (JobEntry j : jobs.inPhase(JobEntry.Phase.DROPPING)) {
      out.persist(new Effect.Write.DeleteJob(j.id()));
      jobs.remove(j);
      LOG.info("job '{}' dropped during recovery", j.name());
    }
    for (RescheduleOp op : List.copyOf(ops.values())) {
      if (op.stage != RescheduleOp.Stage.INJECTED) {
        finish(op, new IllegalStateException("reschedule of job '" + op.job.name() + "' was interrupted by a recovery ("
            + recovery.reason() + ") before its barrier; nothing changed, retry"));
      }
    }
  }

  private void rebuild() {
    List<Worker> alive = members.aliveWorkers();
    if (alive.isEmpty()) {
      recovery.restart();
      return;
    }
    Set<Integer> lost = new TreeSet<>();
    members.inState(Membership.State.LOST).forEach(m -> lost.add(m.id()));
    List<Worker> targets = members.schedulable().isEmpty() ? alive : members.schedulable();
    Set<Long> tokens = new HashSet<>();
    for (JobEntry j : jobs.all()) {
      if (Layouts.workersOf(j.layout).stream().anyMatch(lost::contains)) {
        j.layout = Layouts.withoutWorkers(j.def, j.layout, lost, targets);
      }
      j.pausedInBarriers = j.paused; // the queue was dropped: actors are built as the catalog says
      // Recovery rebuilds from the committed version, so the layout it builds becomes the stored one
      // (an adopted reschedule's target, or one moved off lost workers).
      out.persist(new Effect.Write.PutJob(record(j)));
      tokens.addAll(build(j, j.layout, Set.of()));
    }
    recovery.building(tokens);
  }

  private void recovered(long nowMs) {
    for (Membership.Member m : members.inState(Membership.State.LOST)) {
      out.persist(new Effect.Write.DeleteWorker(m.id()));
      out.add(new Effect.Disconnect(m.id()));
      members.remove(m.id());
      LOG.info("lost worker {} at {} removed", m.id(), m.worker.address());
    }
    for (RescheduleOp op : List.copyOf(ops.values())) {
      finish(op, null); // injected before the failure: its target is the layout recovery rebuilt and stored
    }
    jobs.all().forEach(j -> j.reconciledGeneration = -1); // intents are applied afresh once membership settles
    recoveries++;
    LOG.info("recovered from '{}' at committed epoch {} with workers {}", recovery.reason(), version.getMaxCommittedEpoch(),
        members.aliveWorkers().stream().map(Worker::id).toList());
    recovery.finish();
    barriers.soon(nowMs);
  }

  private static JobRecord record(JobEntry j) {
    return new JobRecord(j.def, j.intent, j.layout, j.paused);
  }

  // ---------------------------------------------------------------- views

  /** A consistent view of the catalog and membership for tools and policies. */
  public ClusterSnapshot snapshot() {
    Map<String, ClusterSnapshot.JobView> views = new TreeMap<>();
    for (JobEntry j : jobs.all()) {
      if (j.visible()) {
        views.put(j.name(), new ClusterSnapshot.JobView(j.def, j.intent, j.layout, j.paused, j.phase == JobEntry.Phase.RESCHEDULING));
      }
    }
    List<Integer> draining = members.inState(Membership.State.DRAINING).stream().map(Membership.Member::id).toList();
    return new ClusterSnapshot(members.aliveWorkers(), draining, views, stats());
  }

  public MetaStats stats() {
    return new MetaStats(version.getMaxCommittedEpoch(), committedBarriers, lastBarrierLatencyMs, barriers.inflight(),
        members.alive().size(), (int) jobs.all().stream().filter(JobEntry::visible).count(), recoveries);
  }

  public StoreVersion committedVersion() {
    return version;
  }

  /** Every known worker's health (alive: active or draining), ascending ids. */
  public List<WorkerHealth> workerHealth() {
    List<WorkerHealth> out = new ArrayList<>();
    for (Membership.Member m : members.all()) {
      out.add(new WorkerHealth(m.worker, m.state.name().toLowerCase(java.util.Locale.ROOT), m.actors, m.lastHeartbeatMs,
          m.minReaderVersion, m.resourceId));
    }
    return out;
  }

  /** Whether a recovery is requested or running, and why. */
  public String recoveryReason() {
    return recovery.reason();
  }

  /**
   * A worker's health as of its last heartbeat.
   *
   * @param state {@code active}, {@code draining}, {@code left} (drained, told to leave) or {@code lost}
   * @param minReaderVersion the oldest state-store version its readers use; 0 before it said
   */
  /** @param resourceId the compute pool's resource the node was launched for, {@code ""} when started by hand */
  public record WorkerHealth(Worker worker, String state, int actors, long lastHeartbeatMs, long minReaderVersion, String resourceId) {
    public boolean alive() {
      return state.equals("active") || state.equals("draining");
    }

    public boolean draining() {
      return state.equals("draining");
    }
  }
}
