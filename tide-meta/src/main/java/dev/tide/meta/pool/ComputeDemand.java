package dev.tide.meta.pool;

import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.core.MetaCore.WorkerHealth;
import dev.tide.meta.scale.Intent;
import dev.tide.meta.scale.JobIntent;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.dra.PoolLoad;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The compute pool as its keeper sees it, a pure function of meta's workers and jobs: nodes as
 * instances of their slots, the slots the jobs want as demand.
 *
 * <p>Wanted slots {@code W}: a slot is a node's capacity in actors of one fragment, so a fragment of
 * fixed parallelism {@code n} (set by hand or by the autoscaler) wants {@code n} slots, and the
 * cluster wants the largest such {@code n} (at least 1 while a job runs). Adaptive fragments follow
 * the slots there are and want none beyond that.
 *
 * <p>Nodes: an active node is an instance of its slots; it is busy with the part of {@code W} it
 * would hold if {@code W} were packed onto the nodes in order — nodes started by hand first (they are
 * never released), then launched ones by resource id (oldest first) — so the newest launched nodes
 * are the ones that turn idle when demand falls, whatever actors adaptive fragments placed there.
 * A node the keeper is draining ({@code keeperDrains}) stays an instance busy with its actors (at
 * least one) until meta told it to leave, so it is released only once it stopped. So does a launched
 * node drained by someone else ({@code tide ctl worker drain}), marked {@linkplain InstanceView#leaving
 * leaving} so that the keeper adopts its drain and releases its resource once it left (not while its
 * actors migrate off, and not at a boot deadline, as a resource unknown to it); a node started by hand
 * and drained counts as gone. Then
 * {@code busy + serviceable − effective = W − effective slots}: the keeper's immediate demand.
 * The pool has no future-demand signal (no PENDING tables) and is never planning-bound.
 */
public record ComputeDemand(int wantedSlots, List<InstanceView> instances, PoolLoad load) {
  /** The id a compute node has as a pool instance. */
  public static String instanceId(int workerId) {
    return "worker-" + Integer.toUnsignedString(workerId);
  }

  /** The worker id of a pool instance id, if it is one. */
  public static Optional<Integer> workerId(String instanceId) {
    if (!instanceId.startsWith("worker-")) {
      return Optional.empty();
    }
    try {
      return Optional.of(Integer.parseUnsignedInt(instanceId.substring("worker-".length())));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The slots the jobs want: the largest fixed parallelism of a fragment, at least 1 while a job runs, 0 without jobs. */
  public static int wantedSlots(Collection<JobIntent> intents) {
    int w = 0;
    for (JobIntent i : intents) {
      w = Math.max(w, Math.max(1, fixed(i.job())));
      for (Intent o : i.fragmentOverrides().values()) {
        w = Math.max(w, fixed(o));
      }
    }
    return w;
  }

  private static int fixed(Intent i) {
    return i instanceof Intent.Fixed f ? f.parallelism() : 0;
  }

  /**
   * @param workers every worker meta knows, with its state and resource id
   * @param jobs the jobs with their intents and layouts
   * @param keeperDrains instance ids the pool's keeper is draining
   */
  public static ComputeDemand of(List<WorkerHealth> workers, Collection<ClusterSnapshot.JobView> jobs, Set<String> keeperDrains) {
    int wanted = wantedSlots(jobs.stream().map(ClusterSnapshot.JobView::intent).toList());
    Map<Integer, Integer> hosted = new java.util.HashMap<>();
    for (ClusterSnapshot.JobView j : jobs) {
      j.layout().actorsPerWorker().forEach((w, n) -> hosted.merge(w, n, Integer::sum));
    }
    // A node the keeper started draining may still read "active" here: meta answers the drain before it
    // publishes the new states. It is draining all the same, never idle for the packing.
    List<WorkerHealth> active = new ArrayList<>(workers.stream()
        .filter(w -> w.state().equals("active") && !keeperDrains.contains(instanceId(w.worker().id()))).toList());
    active.sort(Comparator.comparing((WorkerHealth w) -> !w.resourceId().isEmpty()).thenComparing(WorkerHealth::resourceId)
        .thenComparingInt(w -> w.worker().id()));
    List<InstanceView> out = new ArrayList<>();
    int left = wanted;
    int packed = 0;
    for (WorkerHealth w : active) {
      int busy = Math.min(w.worker().slots(), left);
      left -= busy;
      packed += busy;
      out.add(view(w, busy));
    }
    int draining = 0;
    for (WorkerHealth w : workers) {
      boolean byKeeper = keeperDrains.contains(instanceId(w.worker().id()));
      boolean byOthers = !byKeeper && !w.resourceId().isEmpty() && (w.state().equals("draining") || w.state().equals("left"));
      if (!w.state().equals("lost") && (byKeeper || byOthers)) {
        // Busy until meta told it to leave: a layout without its actors may not have committed yet.
        int actors = w.state().equals("left") ? 0 : Math.max(1, hosted.getOrDefault(w.worker().id(), 0));
        draining += actors;
        out.add(byOthers ? view(w, actors).asLeaving() : view(w, actors));
      }
    }
    int waiting = Math.max(0, wanted - packed);
    return new ComputeDemand(wanted, out, PoolLoad.of(packed + draining, waiting));
  }

  /**
   * When each node was last seen busy, after observing this demand at {@code nowMs}: {@code nowMs} for a
   * busy node, the previous reading for an idle one; nodes no longer listed are dropped. The keeper
   * rounds only on changes and once a minute, so its own observations alone would start a node's idle
   * clock at the last round before the demand fell.
   */
  public Map<String, Long> lastBusy(Map<String, Long> previous, long nowMs) {
    Map<String, Long> next = new java.util.TreeMap<>();
    for (InstanceView i : instances) {
      if (i.inFlightTasks() > 0) {
        next.put(i.instanceId(), nowMs);
      } else if (previous.containsKey(i.instanceId())) {
        next.put(i.instanceId(), previous.get(i.instanceId()));
      }
    }
    return next;
  }

  /** The same demand, each node's {@link InstanceView#lastTaskMs} the time {@code lastBusy} says it was last seen busy. */
  public ComputeDemand withLastBusy(Map<String, Long> lastBusy) {
    return new ComputeDemand(wantedSlots, instances.stream()
        .map(i -> lastBusy.containsKey(i.instanceId()) ? i.withLastTaskAt(lastBusy.get(i.instanceId())) : i).toList(), load);
  }

  private static InstanceView view(WorkerHealth w, int inFlight) {
    String id = instanceId(w.worker().id());
    return w.resourceId().isEmpty() ? InstanceView.manual(id, w.worker().slots(), inFlight)
        : InstanceView.launched(id, w.worker().slots(), inFlight, w.resourceId());
  }
}
