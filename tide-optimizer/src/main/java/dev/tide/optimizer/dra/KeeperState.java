package dev.tide.optimizer.dra;

import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The scale keeper's own state for one group, between rounds. Immutable; each round returns a new one
 * in its {@link ScaleDecision}.
 *
 * <p>Transitions (all made by {@link ScaleDecider#decide}):
 *
 * <pre>
 * backlog timer   none ──demand──▶ running(since=now, nextAdd=now+scheduler-backlog-timeout)
 *                 running ──add──▶ running(since, nextAdd=now+sustained-backlog-timeout)
 *                 running ──round without demand, or floor deficit──▶ none
 * ramp            1 ──add of exactly ramp instances──▶ 2·ramp;  any other round ──▶ 1 (a waiting round keeps it)
 * request         requested ──registered | failed synchronously | boot deadline passed──▶ forgotten
 * instance        active ──scale-down──▶ draining(start) ──gone from the snapshot──▶ forgotten
 *                 draining ──idle, or drain-timeout passed──▶ removal decided (again each round until gone)
 * planning-bound  n ──bound round──▶ n+1 (warn once when n+1 = 2);  any other round ──▶ 0, re-armed
 * </pre>
 *
 * @param backlog the demand timer of the running backlog episode, if any
 * @param ramp instances the next demand-driven add may request at most (1, 2, 4, …)
 * @param lastScaleUpMs time of the last round that requested instances
 * @param lastScaleDownMs time of the last drain start (the cooldown runs from it)
 * @param planningBound the planning-bound episode
 * @param lastBusyMs (sorted by id) per registered instance, the last round it had tasks in flight (or was first seen)
 * @param draining draining instances, sorted by id
 * @param pendingRequests requested-not-registered instances, sorted by resource id
 * @param requestSeq requests made so far (makes resource ids unique)
 * @param scaleUpRounds counter: rounds that requested instances
 * @param scaleDownStarts counter: drains started
 */
public record KeeperState(
    Optional<BacklogTimer> backlog,
    int ramp,
    OptionalLong lastScaleUpMs,
    OptionalLong lastScaleDownMs,
    PlanningBound planningBound,
    Map<String, Long> lastBusyMs,
    Map<String, Drain> draining,
    List<PendingRequest> pendingRequests,
    long requestSeq,
    long scaleUpRounds,
    long scaleDownStarts) {

  public KeeperState {
    Objects.requireNonNull(backlog, "backlog");
    Objects.requireNonNull(lastScaleUpMs, "lastScaleUpMs");
    Objects.requireNonNull(lastScaleDownMs, "lastScaleDownMs");
    Objects.requireNonNull(planningBound, "planningBound");
    if (ramp < 1) {
      throw new IllegalArgumentException("ramp must be ≥ 1, got " + ramp);
    }
    lastBusyMs = sorted(lastBusyMs);
    draining = sorted(draining);
    pendingRequests = pendingRequests.stream().sorted(Comparator.comparing(PendingRequest::resourceId)).toList();
  }

  private static <V> SortedMap<String, V> sorted(Map<String, V> m) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(m));
  }

  /** The state of a group the keeper has just picked up. */
  public static KeeperState initial() {
    return new KeeperState(Optional.empty(), 1, OptionalLong.empty(), OptionalLong.empty(), PlanningBound.NONE,
        Map.of(), Map.of(), List.of(), 0, 0, 0);
  }

  /**
   * The state to keep when DRA is disabled on the group: only the boot-window accounting (and the
   * counters) survive, so the floor-only keeper does not re-request instances that are booting.
   */
  public KeeperState retainBootWindow() {
    return new KeeperState(Optional.empty(), 1, OptionalLong.empty(), OptionalLong.empty(), PlanningBound.NONE,
        Map.of(), Map.of(), pendingRequests, requestSeq, scaleUpRounds, scaleDownStarts);
  }

  /** Threads requested and not yet registered. */
  public int requestedThreads() {
    return pendingRequests.stream().mapToInt(PendingRequest::threads).sum();
  }
}
