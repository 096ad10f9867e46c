package dev.tide.meta.scale;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * Pure planners of a job's target layout, for an intent ({@code tide ctl scale}, worker join or
 * drain, a scaling policy) or an explicit plan ({@code tide ctl reschedule}). Both change whole
 * {@link Ensemble}s: the planner decides which of the root's actors survive and on which workers new
 * actors go; every member mirrors the root by actor index; vnodes (and a source's splits) are then
 * redistributed per member by {@link Rebalancer}, so surviving actors keep as many units as balance
 * allows. An ensemble that needs no change keeps its actors as they are, vnodes included.
 *
 * <p>Deterministic: fragments, ensembles and workers are iterated in id order; new actor ids are
 * drawn from {@code actorIds} for fragments in ascending id order, then by actor index, and only
 * for actors the target adds. Requests are validated completely before any id is drawn.
 */
public final class LayoutPlanner {
  private LayoutPlanner() {}

  /** Which of an ensemble's current actors (root indices, ascending) stay, and the workers of new ones. */
  private record Change(List<Integer> keep, List<Integer> newWorkers) {}

  /**
   * Target layout for an intent (also used after membership changes): {@code schedulable} workers
   * exclude draining ones.
   *
   * <p>Per ensemble: {@code n = min(max(1, intent.resolve(total slots of schedulable)), cap)}, where
   * the intent is the root's override or the job's intent and cap is the least
   * {@link Layouts#maxParallelism} of its members (1 with a singleton). Actors on non-schedulable
   * workers are removed; while more than {@code n} remain, the highest actor id of the most loaded
   * worker is removed (load = the ensemble's actors on the worker / its slots; ties: higher worker
   * id); while fewer, one is added on the least loaded worker (ties: lower worker id). Then slots
   * act as capacity: while a worker hosts more of the ensemble's actors than its slots and another
   * has a free slot, one actor moves there (so a worker that joins relieves oversubscribed ones).
   *
   * @throws RescheduleException if an override names an unknown fragment or a non-root member, or a
   *     fixed override is above its ensemble's cap (or is not 1 for a singleton)
   * @throws IllegalStateException if no worker is schedulable
   */
  public static JobLayout forIntent(JobDefinition job, JobLayout current, JobIntent intent, List<Worker> schedulable, LongSupplier actorIds) {
    JobShape shape = JobShape.of(job);
    shape.check(current, "current layout");
    for (Map.Entry<Integer, Intent> o : intent.fragmentOverrides().entrySet()) {
      int f = o.getKey();
      String op = "scale of fragment " + f + " refused: ";
      checkRoot(shape, f, op, "set the intent of");
      Ensemble e = shape.ensembleOf(f);
      if (o.getValue() instanceof Intent.Fixed fixed) {
        int singleton = shape.singletonMember(e);
        if (singleton >= 0 && fixed.parallelism() != 1) {
          throw new RescheduleException(op + singletonText(shape, e, singleton) + ", but the intent asks for " + fixed.parallelism());
        }
        if (fixed.parallelism() > shape.cap(e)) {
          throw new RescheduleException(op + shape.capExceeded(e, fixed.parallelism()));
        }
      }
    }
    TreeMap<Integer, Worker> workers = byId(schedulable, shape);
    if (workers.isEmpty()) {
      throw new IllegalStateException("scale of " + shape.jobLabel() + " cannot be planned: no schedulable compute node"
          + " (every registered node is draining, or none is registered)");
    }
    int slots = 0;
    for (Worker w : workers.values()) {
      slots = (int) Math.min(Integer.MAX_VALUE, (long) slots + w.slots());
    }

    TreeMap<Integer, Change> changes = new TreeMap<>();
    for (Ensemble e : shape.ensembles) {
      int n = Math.min(Math.max(1, intent.intentFor(e.root()).resolve(slots)), shape.cap(e));
      List<ActorPlacement> actors = current.actors(e.root());
      List<Integer> keep = new ArrayList<>();
      TreeMap<Integer, Integer> load = new TreeMap<>();
      workers.keySet().forEach(w -> load.put(w, 0));
      for (int i = 0; i < actors.size(); i++) {
        int w = actors.get(i).workerId();
        if (workers.containsKey(w)) {
          keep.add(i);
          load.merge(w, 1, Integer::sum);
        }
      }
      while (keep.size() > n) {
        int victimWorker = -1;
        for (int w : load.keySet()) { // ascending, so ">=" prefers the higher id on ties
          if (load.get(w) > 0 && (victimWorker < 0 || compareLoad(load, workers, w, victimWorker) >= 0)) {
            victimWorker = w;
          }
        }
        int victim = -1;
        for (int i : keep) {
          if (actors.get(i).workerId() == victimWorker && (victim < 0 || actors.get(i).actorId() > actors.get(victim).actorId())) {
            victim = i;
          }
        }
        keep.remove(Integer.valueOf(victim));
        load.merge(victimWorker, -1, Integer::sum);
      }
      List<Integer> newWorkers = new ArrayList<>();
      while (keep.size() + newWorkers.size() < n) {
        int target = -1;
        for (int w : load.keySet()) { // ascending, so "<" prefers the lower id on ties
          if (target < 0 || compareLoad(load, workers, w, target) < 0) {
            target = w;
          }
        }
        newWorkers.add(target);
        load.merge(target, 1, Integer::sum);
      }
      relieveOverCapacity(actors, keep, newWorkers, load, workers);
      if (keep.size() != actors.size() || !newWorkers.isEmpty()) {
        changes.put(e.root(), new Change(keep, newWorkers));
      }
    }
    return apply(shape, current, changes, actorIds);
  }

  /**
   * Slots are capacity: while a worker hosts more of the ensemble's actors than it has slots and
   * another has a free slot, one actor moves from the most loaded such worker to the least loaded
   * one with a free slot (an actor still to be added is re-targeted first; else the highest kept
   * actor id migrates). With no free slot anywhere (more actors than slots), nothing moves.
   */
  private static void relieveOverCapacity(List<ActorPlacement> actors, List<Integer> keep, List<Integer> newWorkers,
      TreeMap<Integer, Integer> load, Map<Integer, Worker> workers) {
    while (true) {
      int over = -1;
      int under = -1;
      for (int w : load.keySet()) {
        if (load.get(w) > workers.get(w).slots() && (over < 0 || compareLoad(load, workers, w, over) >= 0)) {
          over = w;
        }
        if (load.get(w) < workers.get(w).slots() && (under < 0 || compareLoad(load, workers, w, under) < 0)) {
          under = w;
        }
      }
      if (over < 0 || under < 0) {
        return;
      }
      int pending = newWorkers.lastIndexOf(over);
      if (pending >= 0) {
        newWorkers.remove(pending);
      } else {
        int victim = -1;
        for (int i : keep) {
          if (actors.get(i).workerId() == over && (victim < 0 || actors.get(i).actorId() > actors.get(victim).actorId())) {
            victim = i;
          }
        }
        keep.remove(Integer.valueOf(victim));
      }
      newWorkers.add(under);
      load.merge(over, -1, Integer::sum);
      load.merge(under, 1, Integer::sum);
    }
  }

  /** Compares the loads (actors / slots) of two workers exactly. */
  private static int compareLoad(Map<Integer, Integer> load, Map<Integer, Worker> workers, int a, int b) {
    return Long.compare((long) load.get(a) * workers.get(b).slots(), (long) load.get(b) * workers.get(a).slots());
  }

  /**
   * Target layout for an explicit plan; {@code workers} are the registered, non-draining workers.
   * Applies the per-worker deltas exactly: {@code -m} removes that worker's {@code m} highest actor
   * ids of the root (and their mirrors), {@code +n} adds {@code n} actors on it (after the survivors,
   * in worker id order). Fragments the plan does not name keep their actors as they are.
   *
   * @throws RescheduleException naming the fragment and the numbers if the plan targets an unknown
   *     fragment or a non-root ensemble member, adds on an unknown or draining worker, removes more
   *     actors than a worker hosts, changes a singleton's count, or leaves a parallelism outside
   *     {@code [1, cap]}
   */
  public static JobLayout forPlan(JobDefinition job, JobLayout current, ReschedulePlan plan, List<Worker> workers, LongSupplier actorIds) {
    JobShape shape = JobShape.of(job);
    shape.check(current, "current layout");
    TreeMap<Integer, Worker> schedulable = byId(workers, shape);
    TreeMap<Integer, Change> changes = new TreeMap<>();
    for (Map.Entry<Integer, List<WorkerDelta>> entry : plan.fragments().entrySet()) {
      int f = entry.getKey();
      String op = "reschedule of fragment " + f + " refused: ";
      checkRoot(shape, f, op, "target");
      Ensemble e = shape.ensembleOf(f);
      List<ActorPlacement> actors = current.actors(f);
      TreeMap<Integer, List<Integer>> hosted = new TreeMap<>(); // worker -> root indices, by descending actor id
      for (int i = 0; i < actors.size(); i++) {
        hosted.computeIfAbsent(actors.get(i).workerId(), w -> new ArrayList<>()).add(i);
      }
      hosted.values().forEach(l -> l.sort((x, y) -> Long.compare(actors.get(y).actorId(), actors.get(x).actorId())));
      TreeSet<Integer> removed = new TreeSet<>();
      List<Integer> newWorkers = new ArrayList<>();
      long n = actors.size();
      for (WorkerDelta d : entry.getValue()) {
        int w = d.workerId();
        List<Integer> on = hosted.getOrDefault(w, List.of());
        if (d.delta() > 0) {
          if (!schedulable.containsKey(w)) {
            throw new RescheduleException(op + "worker " + w + " is " + (isKnown(w, current) ? "not schedulable (draining or lost)" : "unknown")
                + "; actors can be added on the schedulable workers " + schedulable.keySet());
          }
          for (int k = 0; k < d.delta(); k++) {
            newWorkers.add(w);
          }
        } else {
          if (on.isEmpty() && !schedulable.containsKey(w) && !isKnown(w, current)) {
            throw new RescheduleException(op + "worker " + w + " is unknown; schedulable workers: " + schedulable.keySet()
                + ", workers hosting fragment " + f + ": " + hosted.keySet());
          }
          if (-d.delta() > on.size()) {
            throw new RescheduleException(op + "the plan removes " + -d.delta() + " actors from worker " + w + ", which hosts "
                + on.size() + " of fragment " + f + " (fragment " + f + " runs on workers " + hostedCounts(hosted) + ")");
          }
          removed.addAll(on.subList(0, -d.delta()));
        }
        n += d.delta();
      }
      int singleton = shape.singletonMember(e);
      if (singleton >= 0 && n != 1) {
        throw new RescheduleException(op + singletonText(shape, e, singleton) + ", but the plan leaves it " + n
            + "; a singleton can only be migrated: -1 on one worker, +1 on another");
      }
      if (n < 1) {
        throw new RescheduleException(op + "parallelism " + n + " is below 1 (the plan removes all " + actors.size() + " actors)");
      }
      if (n > shape.cap(e)) {
        throw new RescheduleException(op + shape.capExceeded(e, n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n));
      }
      List<Integer> keep = new ArrayList<>();
      for (int i = 0; i < actors.size(); i++) {
        if (!removed.contains(i)) {
          keep.add(i);
        }
      }
      changes.put(f, new Change(keep, newWorkers));
    }
    return apply(shape, current, changes, actorIds);
  }

  private static void checkRoot(JobShape shape, int f, String op, String verb) {
    if (!shape.has(f)) {
      throw new RescheduleException(op + "fragment " + f + " is not a fragment of " + shape.jobLabel() + "; its fragments are "
          + shape.fragments.keySet());
    }
    Ensemble e = shape.ensembleOf(f);
    if (e.root() != f) {
      throw new RescheduleException(op + "fragment " + f + " is a member of the NO_SHUFFLE ensemble " + e.members()
          + ", which scales as one, driven by its most upstream fragment; " + verb + " fragment " + e.root() + " instead");
    }
  }

  private static String singletonText(JobShape shape, Ensemble e, int singleton) {
    return "fragment " + singleton + " is a singleton" + (e.isLinked() ? " (in the ensemble " + e.members() + ")" : "")
        + " and always has exactly 1 actor";
  }

  private static boolean isKnown(int worker, JobLayout current) {
    return Layouts.workersOf(current).contains(worker);
  }

  private static String hostedCounts(TreeMap<Integer, List<Integer>> hosted) {
    StringBuilder sb = new StringBuilder("{");
    hosted.forEach((w, l) -> sb.append(sb.length() > 1 ? ", " : "").append(w).append('=').append(l.size()));
    return sb.append('}').toString();
  }

  private static TreeMap<Integer, Worker> byId(List<Worker> workers, JobShape shape) {
    TreeMap<Integer, Worker> out = new TreeMap<>();
    for (Worker w : workers) {
      if (out.put(w.id(), w) != null) {
        throw new IllegalArgumentException("workers of " + shape.jobLabel() + " list worker " + w.id() + " twice");
      }
    }
    return out;
  }

  /** Builds the target: changed ensembles get rebalanced units per member and fresh ids for new actors. */
  private static JobLayout apply(JobShape shape, JobLayout current, TreeMap<Integer, Change> changes, LongSupplier actorIds) {
    TreeMap<Integer, List<ActorPlacement>> out = new TreeMap<>();
    for (int f : shape.fragments.keySet()) {
      List<ActorPlacement> actors = current.actors(f);
      Change c = changes.get(shape.ensembleOf(f).root());
      if (c == null) {
        out.put(f, actors);
        continue;
      }
      List<ActorPlacement> kept = c.keep().stream().map(actors::get).toList();
      int added = c.newWorkers().size();
      List<VnodeBitmap> vnodes;
      int units = shape.vnodeUnits(f);
      if (shape.isSource(f) && actors.size() > 1 && actors.stream().allMatch(a -> a.vnodes().equals(VnodeBitmap.full(units)))) {
        // A source whose actors all hold every vnode (vnodes carry no state there): new actors do too.
        vnodes = new ArrayList<>();
        for (int i = 0; i < kept.size() + added; i++) {
          vnodes.add(VnodeBitmap.full(units));
        }
      } else {
        vnodes = Rebalancer.rebalance(kept.stream().map(ActorPlacement::vnodes).toList(), added, units);
      }
      List<List<Integer>> splits = null;
      if (shape.isSource(f)) {
        splits = Rebalancer.rebalanceSplits(kept.stream().map(ActorPlacement::splits).toList(), added, shape.splitCount(f));
      }
      List<ActorPlacement> target = new ArrayList<>();
      for (int i = 0; i < kept.size() + added; i++) {
        List<Integer> s = splits != null ? splits.get(i) : i < kept.size() ? kept.get(i).splits() : List.of();
        if (i < kept.size()) {
          target.add(new ActorPlacement(kept.get(i).actorId(), kept.get(i).workerId(), vnodes.get(i), s));
        } else {
          target.add(new ActorPlacement(actorIds.getAsLong(), c.newWorkers().get(i - kept.size()), vnodes.get(i), s));
        }
      }
      out.put(f, target);
    }
    return new JobLayout(out);
  }
}
