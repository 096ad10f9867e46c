package dev.tide.optimizer.dra;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The metrics of one optimizer group (tag {@code group}), computed from a snapshot and the keeper state
 * after the round that used it (spec 20). Gauges are point values; {@code scaleUpRounds} and
 * {@code scaleDownStarts} are monotonic counters.
 *
 * @param idleInstances registered, not draining instances with nothing in flight
 * @param configInvalid 1 if the stored configuration is invalid (DRA treated as disabled), else 0
 * @param drainingInstances instances draining
 * @param effectiveThreads registered − draining + requested-not-registered threads
 * @param backlogDurationMs how long the current backlog episode has lasted, 0 without one
 * @param scaleUpRounds counter: rounds that requested instances
 * @param scaleDownStarts counter: drains started
 * @param pendingTasks PLANNED tasks
 * @param executingTasks SCHEDULED or ACKED tasks
 * @param planningTables tables PLANNING
 * @param pendingTables tables PENDING
 * @param executingTables tables OPTIMIZING
 * @param idleTables tables IDLE
 * @param committingTables tables COMMITTING
 * @param instances registered instances
 * @param threads threads of registered instances
 */
public record GroupMetrics(
    String group,
    int idleInstances,
    int configInvalid,
    int drainingInstances,
    int effectiveThreads,
    long backlogDurationMs,
    long scaleUpRounds,
    long scaleDownStarts,
    int pendingTasks,
    int executingTasks,
    int planningTables,
    int pendingTables,
    int executingTables,
    int idleTables,
    int committingTables,
    int instances,
    int threads) {

  /** Metric names, in record order after {@code group}. */
  public static final List<String> NAMES = List.of(
      "idle-instances", "config-invalid", "draining-instances", "effective-threads", "backlog-duration-ms",
      "scale-up-rounds", "scale-down-starts", "pending-tasks", "executing-tasks", "planning-tables",
      "pending-tables", "executing-tables", "idle-tables", "committing-tables", "instances", "threads");

  public static GroupMetrics of(GroupSnapshot snapshot, KeeperState state, boolean configInvalid, long nowMs) {
    Set<String> registeredResources = new HashSet<>();
    for (InstanceView i : snapshot.instances()) {
      i.resourceId().ifPresent(registeredResources::add);
    }
    List<PendingRequest> pending = state.pendingRequests().stream()
        .filter(p -> !registeredResources.contains(p.resourceId()) && nowMs < p.bootDeadlineMs())
        .toList();
    Capacity cap = Capacity.of(snapshot.instances(), state.draining(), pending, state.releases());
    int idle = 0;
    for (InstanceView i : snapshot.instances()) {
      if (!state.draining().containsKey(i.instanceId()) && i.inFlightTasks() == 0) {
        idle++;
      }
    }
    long backlogMs = state.backlog().map(t -> Math.max(0, nowMs - t.sinceMs())).orElse(0L);
    TableCounts t = snapshot.tables();
    return new GroupMetrics(snapshot.group(), idle, configInvalid ? 1 : 0, cap.drainingInstances(),
        cap.effectiveThreads(), backlogMs, state.scaleUpRounds(), state.scaleDownStarts(), snapshot.plannedTasks(),
        snapshot.busyThreads(), t.planning(), t.pending(), t.optimizing(), t.idle(), t.committing(),
        snapshot.instances().size(), snapshot.registeredThreads());
  }
}
