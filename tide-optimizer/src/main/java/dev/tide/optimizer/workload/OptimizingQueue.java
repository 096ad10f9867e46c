package dev.tide.optimizer.workload;

import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.Quotas;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.group.TableStatus;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The optimizing workload of every group: state tables with their optimizing status, the tasks of
 * their compactions, and the registered optimizer instances that run them. Every method takes
 * {@code now} (milliseconds) from its caller and does no I/O: planning, committing and deleting are
 * the caller's effects, reported back through {@link #planned}, {@link #planFailed}, {@link #committed}
 * and {@link #commitFailed}.
 *
 * <h2>Table status</h2>
 *
 * <pre>
 * from        to          when
 * IDLE        PENDING     {@link #observe}: the table's L0 reached a trigger threshold
 * PENDING     PLANNING    {@link #poll} found no task for the polling thread and a planning slot of the group is free
 * PLANNING    OPTIMIZING  {@link #planned} with tasks
 * PLANNING    IDLE        {@link #planned} with nothing to do
 * PLANNING    PENDING     {@link #planFailed}
 * OPTIMIZING  COMMITTING  the last task succeeded ({@link #complete} returns the commit to make)
 * OPTIMIZING  PENDING     a task failed {@code maxAttempts} times: the compaction is abandoned
 * COMMITTING  IDLE        {@link #committed}
 * COMMITTING  PENDING     {@link #commitFailed}
 * </pre>
 *
 * At most {@code optimizer.max-planning-parallelism} tables of a group are PLANNING at once. A task
 * is handed out at poll only while its table occupies fewer threads than its quota's limit
 * ({@link Quotas#limit} over the group's non-draining threads).
 *
 * <h2>Instances</h2>
 *
 * An instance registers with K threads, heartbeats, and expires after its group's
 * {@code optimizer.heart-beat-timeout} without one; {@link #expire} reclaims the tasks of expired
 * instances and tasks scheduled longer than {@code optimizer.task-ack-timeout} ago without an ack. A
 * draining instance gets no new task. Results of a task the caller no longer holds are refused
 * ({@link TaskNotHeldException}), so a task completes at most once.
 *
 * <p>Thread-safety: every public method is synchronized; the state is confined to this object.
 */
public final class OptimizingQueue {
  /** What a poll gave: at most one task, and the tables whose planning it started (plan them, then report). */
  public record PollResult(Optional<TaskView> task, List<Long> planningStarted) {}

  /** A table's finished compaction to commit: remove {@code inputs}, add {@code outputs} to L1. */
  public record CommitWork(long tableId, List<SstInfo> inputs, List<SstInfo> outputs) {}

  /**
   * What a completion caused: a commit to make once every task of the table succeeded, and outputs
   * that will never be committed (the compaction was abandoned) and may be deleted at once.
   */
  public record Completion(Optional<CommitWork> commit, List<SstInfo> discarded) {}

  /** Instances that expired and tasks that went back to PLANNED in one {@link #expire} call. */
  public record Expiry(List<String> expiredInstances, int reclaimedTasks) {}

  /** Lifetime counters, for metrics and tests. */
  public record Stats(long tasksPlanned, long tasksSucceeded, long tasksFailed, long tasksReclaimed, long compactionsCommitted,
      long compactionsAbandoned, long plansFailed) {}

  private static final Map<TableStatus, Set<TableStatus>> TABLE_TRANSITIONS = Map.of(
      TableStatus.IDLE, EnumSet.of(TableStatus.PENDING),
      TableStatus.PENDING, EnumSet.of(TableStatus.PLANNING),
      TableStatus.PLANNING, EnumSet.of(TableStatus.OPTIMIZING, TableStatus.IDLE, TableStatus.PENDING),
      TableStatus.OPTIMIZING, EnumSet.of(TableStatus.COMMITTING, TableStatus.PENDING),
      TableStatus.COMMITTING, EnumSet.of(TableStatus.IDLE, TableStatus.PENDING));

  private static final class Table {
    final long id;
    TableSettings settings;
    TableStatus status = TableStatus.IDLE;
    long statusSinceMs;
    List<SstInfo> inputs = List.of();
    List<CompactionTask> tasks = List.of();

    Table(long id, TableSettings settings) {
      this.id = id;
      this.settings = settings;
    }

    int occupied() {
      int n = 0;
      for (CompactionTask t : tasks) {
        n += t.state.occupiesThread() ? 1 : 0;
      }
      return n;
    }

    int planned() {
      return planned(Long.MAX_VALUE);
    }

    /** PLANNED tasks planned at or before {@code plannedBy}. */
    int planned(long plannedBy) {
      int n = 0;
      for (CompactionTask t : tasks) {
        n += t.state == TaskState.PLANNED && t.plannedAtMs <= plannedBy ? 1 : 0;
      }
      return n;
    }
  }

  private static final class Instance {
    final String id;
    /** Registration order: packing prefers lower. */
    final long seq;
    final String group;
    final int threads;
    final Optional<String> resourceId;
    /** When it was last handed a task or finished one. */
    long lastTaskMs = Long.MIN_VALUE;
    long lastHeartbeatMs;
    boolean draining;

    Instance(String id, long seq, String group, int threads, Optional<String> resourceId, long now) {
      this.id = id;
      this.seq = seq;
      this.group = group;
      this.threads = threads;
      this.resourceId = resourceId;
      this.lastHeartbeatMs = now;
    }
  }

  private final WorkloadOptions options;
  private final Function<String, GroupConfig> groups;
  private final String instanceIdPrefix;
  private final TreeMap<Long, Table> tables = new TreeMap<>();
  private final Map<Long, TableSettings> configured = new HashMap<>();
  private final TreeMap<String, Instance> instances = new TreeMap<>();
  private final Map<Long, CompactionTask> tasks = new HashMap<>();
  private long nextTaskId = 1;
  private long nextInstance = 1;
  private long tasksPlanned;
  private long tasksSucceeded;
  private long tasksFailed;
  private long tasksReclaimed;
  private long compactionsCommitted;
  private long compactionsAbandoned;
  private long plansFailed;

  /**
   * @param groups the configuration of a group by name (defaults for a group without one)
   * @param instanceIdPrefix distinguishes this queue's instance ids from an earlier meta run's
   */
  public OptimizingQueue(WorkloadOptions options, Function<String, GroupConfig> groups, String instanceIdPrefix) {
    this.options = options;
    this.groups = groups;
    this.instanceIdPrefix = instanceIdPrefix;
  }

  public WorkloadOptions options() {
    return options;
  }

  // ---------------------------------------------------------------- tables

  /** Sets a table's group and quota; they apply to its next poll (a running compaction keeps its tasks). */
  public synchronized void configureTable(long tableId, TableSettings settings) {
    configured.put(tableId, settings);
    Table t = tables.get(tableId);
    if (t != null) {
      t.settings = settings;
    }
  }

  /**
   * Looks at a committed version: every table with L0 SSTs is known from now on, and an IDLE table
   * whose L0 reached a trigger threshold becomes PENDING. IDLE tables without L0 SSTs are forgotten.
   *
   * @return the tables that became PENDING
   */
  public synchronized List<Long> observe(StoreVersion version, long now) {
    Map<Long, CompactionPlanner.L0Stats> stats = CompactionPlanner.l0Stats(version);
    List<Long> pending = new ArrayList<>();
    for (Map.Entry<Long, CompactionPlanner.L0Stats> e : stats.entrySet()) {
      Table t = tables.computeIfAbsent(e.getKey(), id -> new Table(id, configured.getOrDefault(id, TableSettings.DEFAULTS)));
      if (t.status == TableStatus.IDLE && CompactionPlanner.needsOptimizing(e.getValue(), options)) {
        move(t, TableStatus.PENDING, now);
        pending.add(t.id);
      }
    }
    tables.values().removeIf(t -> t.status == TableStatus.IDLE && !stats.containsKey(t.id));
    return pending;
  }

  /** A finished plan of a PLANNING table: its tasks become PLANNED (or the table IDLE when there is nothing to do). */
  public synchronized void planned(CompactionPlan plan, long now) {
    Table t = tableIn(plan.tableId(), TableStatus.PLANNING, "report a plan");
    if (plan.isEmpty()) {
      move(t, TableStatus.IDLE, now);
      return;
    }
    List<CompactionTask> list = new ArrayList<>();
    for (TaskSpec spec : plan.tasks()) {
      CompactionTask task = new CompactionTask(nextTaskId++, spec, now);
      list.add(task);
      tasks.put(task.id, task);
    }
    t.inputs = plan.inputs();
    t.tasks = List.copyOf(list);
    tasksPlanned += list.size();
    move(t, TableStatus.OPTIMIZING, now);
  }

  /** Planning of a PLANNING table failed: it goes back to PENDING and is planned again by a later poll. */
  public synchronized void planFailed(long tableId, long now) {
    Table t = tableIn(tableId, TableStatus.PLANNING, "report a failed plan");
    plansFailed++;
    move(t, TableStatus.PENDING, now);
  }

  /** The commit of a COMMITTING table's compaction succeeded: the table is IDLE and its inputs are garbage. */
  public synchronized void committed(long tableId, long now) {
    Table t = tableIn(tableId, TableStatus.COMMITTING, "report a commit");
    compactionsCommitted++;
    endProcess(t, TableStatus.IDLE, now);
  }

  /** The commit was refused: the table goes back to PENDING; the outputs are returned for deletion. */
  public synchronized List<SstInfo> commitFailed(long tableId, long now) {
    Table t = tableIn(tableId, TableStatus.COMMITTING, "report a failed commit");
    List<SstInfo> outputs = outputsOf(t);
    compactionsAbandoned++;
    endProcess(t, TableStatus.PENDING, now);
    return outputs;
  }

  // ---------------------------------------------------------------- instances

  /**
   * Registers an instance of {@code threads} threads in {@code group}.
   *
   * @return its instance id, named in every later call
   */
  public synchronized String register(String group, int threads, Optional<String> resourceId, long now) {
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException("optimizer registration refused: group '" + group + "' must be a non-blank group name");
    }
    if (threads < 1 || threads > 1024) {
      throw new IllegalArgumentException("optimizer registration in group '" + group + "' refused: threads " + threads
          + " must be between 1 and 1024");
    }
    long seq = nextInstance++;
    String id = instanceIdPrefix + "-" + seq;
    instances.put(id, new Instance(id, seq, group, threads, resourceId, now));
    return id;
  }

  /** Records a heartbeat. @throws UnknownInstanceException if the instance is not registered */
  public synchronized void heartbeat(String instanceId, long now) {
    instance(instanceId).lastHeartbeatMs = now;
  }

  /** Removes an instance at its request; its tasks go back to PLANNED. Unknown ids are ignored. */
  public synchronized int unregister(String instanceId) {
    Instance i = instances.remove(instanceId);
    int n = i == null ? 0 : reclaimTasksOf(i.id);
    tasksReclaimed += n;
    return n;
  }

  /** Starts draining: the instance gets no new task. Unknown ids are ignored. */
  public synchronized void drain(String group, String instanceId) {
    Instance i = instances.get(instanceId);
    if (i != null && i.group.equals(group)) {
      i.draining = true;
    }
  }

  /**
   * Expires instances silent for their group's heart-beat timeout and reclaims their tasks, and
   * reclaims tasks scheduled but not acknowledged within the group's task-ack timeout.
   */
  public synchronized Expiry expire(long now) {
    List<String> expired = new ArrayList<>();
    int reclaimed = 0;
    for (Instance i : List.copyOf(instances.values())) {
      if (now - i.lastHeartbeatMs >= groups.apply(i.group).heartBeatTimeout().toMillis()) {
        instances.remove(i.id);
        expired.add(i.id);
        reclaimed += reclaimTasksOf(i.id);
      }
    }
    for (CompactionTask task : sortedTasks()) {
      if (task.state == TaskState.SCHEDULED) {
        Instance i = instances.get(task.instanceId);
        long ackTimeoutMs = groups.apply(i.group).taskAckTimeout().toMillis();
        if (now - task.scheduledAtMs >= ackTimeoutMs) {
          task.moveTo(TaskState.PLANNED);
          reclaimed++;
        }
      }
    }
    tasksReclaimed += reclaimed;
    return new Expiry(expired, reclaimed);
  }

  /** The earliest time at which {@link #expire} could expire an instance or reclaim a task; {@code Long.MAX_VALUE} if none. */
  public synchronized long nextExpiryMs() {
    long next = Long.MAX_VALUE;
    for (Instance i : instances.values()) {
      next = Math.min(next, i.lastHeartbeatMs + groups.apply(i.group).heartBeatTimeout().toMillis());
    }
    for (CompactionTask task : tasks.values()) {
      if (task.state == TaskState.SCHEDULED) {
        next = Math.min(next, task.scheduledAtMs + groups.apply(instances.get(task.instanceId).group).taskAckTimeout().toMillis());
      }
    }
    return next;
  }

  // ---------------------------------------------------------------- tasks

  /**
   * A thread of an instance asks for a task. It gets the lowest PLANNED task of the table of its
   * group that uses the smallest share of its quota limit (ties: lowest table id), if that table is
   * below its limit. An instance with an earlier-registered, non-draining instance in its group only
   * gets tasks that have waited {@code optimizer.packing-window} (see {@link #hasEarlierInstance}). When it gets none, PENDING tables of the group (longest pending first) start
   * PLANNING while fewer than {@code optimizer.max-planning-parallelism} are.
   *
   * @throws UnknownInstanceException if the instance is not registered
   */
  public synchronized PollResult poll(String instanceId, int thread, long now) {
    Instance inst = instance(instanceId);
    if (thread < 0 || thread >= inst.threads) {
      throw new IllegalArgumentException("poll of instance " + instanceId + " refused: thread " + thread + " is not in 0.."
          + (inst.threads - 1));
    }
    inst.lastHeartbeatMs = now;
    if (inst.draining) {
      return new PollResult(Optional.empty(), List.of());
    }
    int groupThreads = groupThreads(inst.group);
    long plannedBy = hasEarlierInstance(inst) ? now - options.packingWindowMs() : Long.MAX_VALUE;
    Table best = null;
    double bestShare = Double.MAX_VALUE;
    for (Table t : tables.values()) {
      if (t.status != TableStatus.OPTIMIZING || !t.settings.group().equals(inst.group) || t.planned(plannedBy) == 0) {
        continue;
      }
      int limit = Quotas.limit(t.settings.quota(), groupThreads);
      int occupied = t.occupied();
      if (occupied >= limit) {
        continue;
      }
      double share = (double) occupied / limit;
      if (share < bestShare) {
        best = t;
        bestShare = share;
      }
    }
    if (best != null) {
      for (CompactionTask task : best.tasks) {
        if (task.state == TaskState.PLANNED && task.plannedAtMs <= plannedBy) {
          task.moveTo(TaskState.SCHEDULED);
          task.attempt++;
          task.instanceId = inst.id;
          task.thread = thread;
          task.scheduledAtMs = now;
          inst.lastTaskMs = now;
          return new PollResult(Optional.of(task.view()), List.of());
        }
      }
    }
    int planning = 0;
    List<Table> pending = new ArrayList<>();
    for (Table t : tables.values()) {
      if (t.settings.group().equals(inst.group)) {
        planning += t.status == TableStatus.PLANNING ? 1 : 0;
        if (t.status == TableStatus.PENDING) {
          pending.add(t);
        }
      }
    }
    pending.sort(Comparator.<Table>comparingLong(t -> t.statusSinceMs).thenComparingLong(t -> t.id));
    int slots = groups.apply(inst.group).maxPlanningParallelism() - planning;
    List<Long> started = new ArrayList<>();
    for (int i = 0; i < Math.min(slots, pending.size()); i++) {
      move(pending.get(i), TableStatus.PLANNING, now);
      started.add(pending.get(i).id);
    }
    return new PollResult(Optional.empty(), started);
  }

  /**
   * Packing: whether a non-draining instance of {@code inst}'s group registered before it. Such an
   * instance gets a new task at once; {@code inst} only once the task has waited the packing window
   * (delay scheduling, like Spark's locality wait). Short tasks then stay on the earliest instances
   * and the latest ones idle under a light load, so the keeper can release them; under a sustained
   * backlog every instance works, the later ones one window behind.
   */
  private boolean hasEarlierInstance(Instance inst) {
    if (options.packingWindowMs() <= 0) {
      return false;
    }
    for (Instance other : instances.values()) {
      if (other.seq < inst.seq && !other.draining && other.group.equals(inst.group)) {
        return true;
      }
    }
    return false;
  }

  /** The thread acknowledges a task it got. @throws TaskNotHeldException if it no longer holds it */
  public synchronized void ack(String instanceId, long taskId, int attempt, long now) {
    instance(instanceId).lastHeartbeatMs = now;
    CompactionTask task = held(instanceId, taskId, attempt, "ack");
    if (task.state != TaskState.SCHEDULED) {
      throw new TaskNotHeldException("ack of task " + taskId + " refused: it is " + task.state + ", not SCHEDULED");
    }
    task.moveTo(TaskState.ACKED);
  }

  /**
   * The thread completes a task it acknowledged, with its outputs ({@code error} empty) or an error.
   * A failed task is retried (back to PLANNED) until it failed {@code maxAttempts} times; then the
   * table's compaction is abandoned and the outputs of its other tasks are returned for deletion.
   *
   * @throws TaskNotHeldException if the caller no longer holds the task: its result must be dropped
   */
  public synchronized Completion complete(String instanceId, long taskId, int attempt, List<SstInfo> outputs, String error,
      long now) {
    Instance inst = instance(instanceId);
    inst.lastHeartbeatMs = now;
    CompactionTask task = held(instanceId, taskId, attempt, "completion");
    if (task.state != TaskState.ACKED) {
      throw new TaskNotHeldException("completion of task " + taskId + " refused: it is " + task.state + ", not ACKED");
    }
    inst.lastTaskMs = now;
    Table t = tables.get(task.spec.tableId());
    if (error == null || error.isEmpty()) {
      task.moveTo(TaskState.SUCCESS);
      task.outputs = List.copyOf(outputs);
      tasksSucceeded++;
      if (t.tasks.stream().allMatch(x -> x.state == TaskState.SUCCESS)) {
        move(t, TableStatus.COMMITTING, now);
        return new Completion(Optional.of(new CommitWork(t.id, t.inputs, outputsOf(t))), List.of());
      }
      return new Completion(Optional.empty(), List.of());
    }
    task.moveTo(TaskState.FAILED);
    task.failures++;
    task.lastError = error;
    tasksFailed++;
    if (task.failures < options.maxAttempts()) {
      task.moveTo(TaskState.PLANNED);
      return new Completion(Optional.empty(), List.of());
    }
    List<SstInfo> discarded = outputsOf(t);
    compactionsAbandoned++;
    endProcess(t, TableStatus.PENDING, now);
    return new Completion(Optional.empty(), discarded);
  }

  // ---------------------------------------------------------------- views

  /** Every known table of {@code group} with its status, quota and task counts (spec 10), by table id. */
  public synchronized List<TableLoad> tables(String group) {
    List<TableLoad> out = new ArrayList<>();
    for (Table t : tables.values()) {
      if (t.settings.group().equals(group)) {
        out.add(new TableLoad(Long.toString(t.id), t.status, t.settings.quota(), t.planned(), t.occupied()));
      }
    }
    return out;
  }

  /** Registered instances of {@code group} with their in-flight (SCHEDULED or ACKED) task counts, by id. */
  public synchronized List<InstanceView> instances(String group) {
    Map<String, Integer> inFlight = new HashMap<>();
    for (CompactionTask task : tasks.values()) {
      if (task.state.occupiesThread()) {
        inFlight.merge(task.instanceId, 1, Integer::sum);
      }
    }
    List<InstanceView> out = new ArrayList<>();
    for (Instance i : instances.values()) {
      if (i.group.equals(group)) {
        out.add(new InstanceView(i.id, i.threads, inFlight.getOrDefault(i.id, 0), i.resourceId, i.lastTaskMs, false));
      }
    }
    return out;
  }

  /** A known table's status, quota and task counts. */
  public synchronized Optional<TableLoad> load(long tableId) {
    Table t = tables.get(tableId);
    return t == null ? Optional.empty()
        : Optional.of(new TableLoad(Long.toString(t.id), t.status, t.settings.quota(), t.planned(), t.occupied()));
  }

  /** The settings a table has or will have when it becomes known. */
  public synchronized TableSettings settings(long tableId) {
    return configured.getOrDefault(tableId, TableSettings.DEFAULTS);
  }

  /** The status of a table, if known. */
  public synchronized Optional<TableStatus> status(long tableId) {
    Table t = tables.get(tableId);
    return t == null ? Optional.empty() : Optional.of(t.status);
  }

  /** The tasks of a table's current compaction, by id. */
  public synchronized List<TaskView> tasks(long tableId) {
    Table t = tables.get(tableId);
    return t == null ? List.of() : t.tasks.stream().map(CompactionTask::view).toList();
  }

  /** Whether the instance is registered and draining. */
  public synchronized boolean draining(String instanceId) {
    Instance i = instances.get(instanceId);
    return i != null && i.draining;
  }

  /** The group an instance registered in. @throws UnknownInstanceException if it is not registered */
  public synchronized String groupOf(String instanceId) {
    return instance(instanceId).group;
  }

  public synchronized Stats stats() {
    return new Stats(tasksPlanned, tasksSucceeded, tasksFailed, tasksReclaimed, compactionsCommitted, compactionsAbandoned,
        plansFailed);
  }

  // ---------------------------------------------------------------- internals

  private void move(Table t, TableStatus next, long now) {
    if (!TABLE_TRANSITIONS.get(t.status).contains(next)) {
      throw new IllegalStateException("table " + t.id + " cannot move from " + t.status + " to " + next);
    }
    t.status = next;
    t.statusSinceMs = now;
  }

  private Table tableIn(long tableId, TableStatus expected, String what) {
    Table t = tables.get(tableId);
    if (t == null || t.status != expected) {
      throw new IllegalStateException("cannot " + what + " for table " + tableId + ": it is "
          + (t == null ? "unknown" : t.status) + ", not " + expected);
    }
    return t;
  }

  /** Ends a table's compaction: its tasks are forgotten (those not finished are CANCELED). */
  private void endProcess(Table t, TableStatus next, long now) {
    for (CompactionTask task : t.tasks) {
      if (task.state != TaskState.SUCCESS) {
        task.moveTo(TaskState.CANCELED);
      }
      tasks.remove(task.id);
    }
    t.tasks = List.of();
    t.inputs = List.of();
    move(t, next, now);
  }

  private static List<SstInfo> outputsOf(Table t) {
    List<SstInfo> out = new ArrayList<>();
    for (CompactionTask task : t.tasks) {
      out.addAll(task.outputs);
    }
    return out;
  }

  private int reclaimTasksOf(String instanceId) {
    int n = 0;
    for (CompactionTask task : sortedTasks()) {
      if (task.state.occupiesThread() && instanceId.equals(task.instanceId)) {
        task.moveTo(TaskState.PLANNED);
        n++;
      }
    }
    return n;
  }

  private List<CompactionTask> sortedTasks() {
    List<CompactionTask> list = new ArrayList<>(tasks.values());
    list.sort(Comparator.comparingLong(t -> t.id));
    return list;
  }

  private int groupThreads(String group) {
    int n = 0;
    for (Instance i : instances.values()) {
      if (i.group.equals(group) && !i.draining) {
        n += i.threads;
      }
    }
    return n;
  }

  private Instance instance(String instanceId) {
    Instance i = instances.get(instanceId);
    if (i == null) {
      throw new UnknownInstanceException(instanceId);
    }
    return i;
  }

  private CompactionTask held(String instanceId, long taskId, int attempt, String what) {
    CompactionTask task = tasks.get(taskId);
    if (task == null || !task.heldBy(instanceId, attempt)) {
      throw new TaskNotHeldException(what + " of task " + taskId + " attempt " + attempt + " by instance " + instanceId
          + " refused: the instance no longer holds it (reclaimed, rescheduled or canceled); drop the result");
    }
    return task;
  }
}
