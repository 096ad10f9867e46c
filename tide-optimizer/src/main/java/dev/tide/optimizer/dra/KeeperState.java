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
 * in its {@link ScaleDecision}. Times are the keeper's monotonic milliseconds.
 *
 * <p>Transitions (all made by {@link ScaleDecider#decide}):
 *
 * <pre>
 * backlog timer   none ──demand──▶ running(since=now, adds=0)
 *                 running ──add──▶ running(since, adds+1, lastAdd=now)
 *                 running ──round without demand (booting capacity counted), or floor deficit──▶ none
 * ramp            1 ──add of exactly ramp instances──▶ 2·ramp;  any other round ──▶ 1 (a waiting round keeps it)
 *                 2·ramp ──a request of that add failed synchronously──▶ ramp (the step is retried)
 * request         requested ──registered | failed synchronously | gone from the provider's list──▶ forgotten
 *                 requested ──boot deadline passed──▶ releasing
 * resource        held by the provider, unknown to the keeper ──listed──▶ requested (a fresh boot deadline)
 * releasing       releasing ──release confirmed | gone from the provider's list──▶ forgotten
 *                 releasing ──release failed──▶ releasing (retried one sustained-backlog-timeout later)
 *                 releasing ──registered after all, release not confirmed──▶ forgotten (an instance now)
 * instance        active ──scale-down──▶ draining(start) ──gone from the snapshot──▶ forgotten (its resource releasing unless removed)
 *                 draining ──idle, or drain-timeout passed──▶ removal decided ──release confirmed──▶ released
 *                 draining ──release failed──▶ removal decided again one sustained-backlog-timeout later
 * planning-bound  n ──bound round──▶ n+1 (warn once when n+1 = 2);  any other round ──▶ 0, re-armed
 * </pre>
 *
 * @param backlog the demand timer of the running backlog episode, if any
 * @param ramp instances the next demand-driven add may request at most (1, 2, 4, …)
 * @param lastStep the add of the previous round, if it was demand-driven (undone on a synchronous failure)
 * @param lastScaleDownMs time of the last drain start (the cooldown runs from it)
 * @param planningBound the planning-bound episode
 * @param lastBusyMs (sorted by id) per registered instance, the last round it had tasks in flight (or was first seen)
 * @param draining draining instances, sorted by id
 * @param pendingRequests requested-not-registered instances, sorted by resource id
 * @param releases expired requests being released, sorted by resource id
 * @param requestSeq requests made so far (makes resource ids unique)
 * @param scaleUpRounds counter: rounds that requested instances
 * @param scaleDownStarts counter: drains started
 */
public record KeeperState(
    Optional<BacklogTimer> backlog,
    int ramp,
    Optional<RampStep> lastStep,
    OptionalLong lastScaleDownMs,
    PlanningBound planningBound,
    Map<String, Long> lastBusyMs,
    Map<String, Drain> draining,
    List<PendingRequest> pendingRequests,
    List<PendingRelease> releases,
    long requestSeq,
    long scaleUpRounds,
    long scaleDownStarts) {

  public KeeperState {
    Objects.requireNonNull(backlog, "backlog");
    Objects.requireNonNull(lastStep, "lastStep");
    Objects.requireNonNull(lastScaleDownMs, "lastScaleDownMs");
    Objects.requireNonNull(planningBound, "planningBound");
    if (ramp < 1) {
      throw new IllegalArgumentException("ramp must be ≥ 1, got " + ramp);
    }
    lastBusyMs = sorted(lastBusyMs);
    draining = sorted(draining);
    pendingRequests = pendingRequests.stream().sorted(Comparator.comparing(PendingRequest::resourceId)).toList();
    releases = releases.stream().sorted(Comparator.comparing(PendingRelease::resourceId)).toList();
  }

  private static <V> SortedMap<String, V> sorted(Map<String, V> m) {
    return Collections.unmodifiableSortedMap(new TreeMap<>(m));
  }

  /** The state of a group the keeper has just picked up. */
  public static KeeperState initial() {
    return booting(List.of(), 0);
  }

  /** A fresh state whose only knowledge is {@code pending} requests (a restarted meta's stored records). */
  public static KeeperState booting(List<PendingRequest> pending, long requestSeq) {
    return new KeeperState(Optional.empty(), 1, Optional.empty(), OptionalLong.empty(), PlanningBound.NONE, Map.of(), Map.of(),
        pending, List.of(), requestSeq, 0, 0);
  }

  /**
   * The state to keep when DRA is disabled on the group: what the keeper still owes the provider
   * (booting requests, releases, drains, which the floor-only rounds finish) and the counters; the
   * backlog episode, the ramp and idle tracking start afresh if DRA is enabled again.
   */
  public KeeperState whenDisabled() {
    return new KeeperState(Optional.empty(), 1, Optional.empty(), OptionalLong.empty(), PlanningBound.NONE, Map.of(), draining,
        pendingRequests, releases, requestSeq, scaleUpRounds, scaleDownStarts);
  }

  /** Whether requests, releases or drains are still unsettled (the group needs rounds even without a floor or DRA). */
  public boolean hasProviderWork() {
    return !pendingRequests.isEmpty() || !releases.isEmpty() || !draining.isEmpty();
  }

  /** Threads requested and not yet registered. */
  public int requestedThreads() {
    return pendingRequests.stream().mapToInt(PendingRequest::threads).sum();
  }

  /** The same state with {@code pending} as its requests (e.g. without those that just failed). */
  public KeeperState withPendingRequests(List<PendingRequest> pending) {
    return new KeeperState(backlog, ramp, lastStep, lastScaleDownMs, planningBound, lastBusyMs, draining, pending, releases,
        requestSeq, scaleUpRounds, scaleDownStarts);
  }
}
