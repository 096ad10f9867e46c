package dev.tide.meta.scale;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a reschedule changes, per fragment (only fragments that change are listed): actors added (id,
 * worker, vnodes, splits), actors dropped, and surviving actors whose worker, vnodes or splits change.
 * Actors are matched by id. A target equal to the current layout gives an empty diff (a no-op).
 *
 * <p>Moved units: a vnode (split) moves when the actor owning it after differs from the one before.
 * {@link #movedVnodes()} counts the vnodes that carry state: each vnode once per ensemble (members of
 * a NO_SHUFFLE ensemble mirror each other, so a moved vnode is counted once, not once per member),
 * over ensembles without a source fragment (a source's vnodes carry no state; its units are splits,
 * counted by {@link #movedSplits()}). A migrated singleton moves its single vnode.
 */
public record LayoutDiff(int jobId, String jobName, SortedMap<Integer, FragmentDiff> fragments, int movedVnodes, int movedSplits) {
  public LayoutDiff {
    fragments = Collections.unmodifiableSortedMap(new TreeMap<>(fragments));
  }

  /** The kind of units a fragment owns. */
  public enum Kind { HASH, SOURCE, SINGLETON }

  /** The changes of one fragment; lists ordered by actor index (added, updated) or id (dropped). */
  public record FragmentDiff(int fragmentId, Kind kind, int unitCount, int actorsBefore, int actorsAfter, List<ActorPlacement> added,
      List<ActorPlacement> dropped, List<ActorUpdate> updated, int movedVnodes, int movedSplits) {
    public FragmentDiff {
      added = List.copyOf(added);
      dropped = List.copyOf(dropped);
      updated = List.copyOf(updated);
    }

    public boolean isEmpty() {
      return added.isEmpty() && dropped.isEmpty() && updated.isEmpty();
    }
  }

  /** A surviving actor whose worker, vnodes or splits change. */
  public record ActorUpdate(long actorId, int workerBefore, int workerAfter, VnodeBitmap vnodesBefore, VnodeBitmap vnodesAfter,
      List<Integer> splitsBefore, List<Integer> splitsAfter) {
    public ActorUpdate {
      splitsBefore = List.copyOf(splitsBefore);
      splitsAfter = List.copyOf(splitsAfter);
    }

    public VnodeBitmap gainedVnodes() {
      return vnodesAfter.andNot(vnodesBefore);
    }

    public VnodeBitmap lostVnodes() {
      return vnodesBefore.andNot(vnodesAfter);
    }

    /** True when the new vnode set is a subset of the old (keyed caches may stay). */
    public boolean shrinksOnly() {
      return vnodesAfter.isSubsetOf(vnodesBefore);
    }

    public List<Integer> gainedSplits() {
      return minus(splitsAfter, splitsBefore);
    }

    public List<Integer> lostSplits() {
      return minus(splitsBefore, splitsAfter);
    }
  }

  private static List<Integer> minus(List<Integer> a, List<Integer> b) {
    TreeSet<Integer> s = new TreeSet<>(a);
    s.removeAll(b);
    return List.copyOf(s);
  }

  /**
   * The diff from {@code current} to {@code target}, both layouts of {@code job}.
   *
   * @throws IllegalArgumentException if a layout does not cover exactly the job's fragments
   */
  public static LayoutDiff of(JobDefinition job, JobLayout current, JobLayout target) {
    JobShape shape = JobShape.of(job);
    shape.check(current, "current layout");
    shape.check(target, "target layout");
    TreeMap<Integer, FragmentDiff> out = new TreeMap<>();
    TreeMap<Integer, Integer> movedByFragment = new TreeMap<>();
    int movedSplits = 0;
    for (int f : shape.fragments.keySet()) {
      List<ActorPlacement> before = current.actors(f);
      List<ActorPlacement> after = target.actors(f);
      TreeMap<Long, ActorPlacement> beforeById = new TreeMap<>();
      before.forEach(a -> beforeById.put(a.actorId(), a));
      TreeSet<Long> afterIds = new TreeSet<>();
      after.forEach(a -> afterIds.add(a.actorId()));
      List<ActorPlacement> added = new ArrayList<>();
      List<ActorUpdate> updated = new ArrayList<>();
      for (ActorPlacement a : after) {
        ActorPlacement b = beforeById.get(a.actorId());
        if (b == null) {
          added.add(a);
        } else if (b.workerId() != a.workerId() || !b.vnodes().equals(a.vnodes()) || !b.splits().equals(a.splits())) {
          updated.add(new ActorUpdate(a.actorId(), b.workerId(), a.workerId(), b.vnodes(), a.vnodes(), b.splits(), a.splits()));
        }
      }
      List<ActorPlacement> dropped = new ArrayList<>();
      beforeById.values().stream().filter(b -> !afterIds.contains(b.actorId())).forEach(dropped::add);

      boolean source = shape.isSource(f);
      int vnodesMoved = source ? 0 : moved(shape.vnodeUnits(f), before, after, false);
      int splitsMoved = source ? moved(shape.splitCount(f), before, after, true) : 0;
      movedByFragment.put(f, vnodesMoved);
      movedSplits += splitsMoved;
      Kind kind = source ? Kind.SOURCE : shape.isSingleton(f) ? Kind.SINGLETON : Kind.HASH;
      FragmentDiff d = new FragmentDiff(f, kind, source ? shape.splitCount(f) : shape.vnodeUnits(f), before.size(), after.size(),
          added, dropped, updated, vnodesMoved, splitsMoved);
      if (!d.isEmpty()) {
        out.put(f, d);
      }
    }
    int movedVnodes = 0;
    for (Ensemble e : shape.ensembles) {
      if (e.members().stream().anyMatch(shape::isSource)) {
        continue;
      }
      movedVnodes += e.members().stream().mapToInt(movedByFragment::get).max().orElse(0);
    }
    return new LayoutDiff(job.getJobId(), job.getName(), out, movedVnodes, movedSplits);
  }

  /** Units whose owning actor changes; a unit owned by several actors counts as owned by the lowest id. */
  private static int moved(int units, List<ActorPlacement> before, List<ActorPlacement> after, boolean splits) {
    long[] ownerBefore = owners(units, before, splits);
    long[] ownerAfter = owners(units, after, splits);
    int moved = 0;
    for (int u = 0; u < units; u++) {
      if (ownerAfter[u] != ownerBefore[u]) {
        moved++;
      }
    }
    return moved;
  }

  private static long[] owners(int units, List<ActorPlacement> actors, boolean splits) {
    long[] owner = new long[units];
    Arrays.fill(owner, Long.MAX_VALUE);
    for (ActorPlacement a : actors) {
      int[] held = splits ? a.splits().stream().mapToInt(Integer::intValue).toArray() : a.vnodes().toArray();
      for (int u : held) {
        if (u >= 0 && u < units) {
          owner[u] = Math.min(owner[u], a.actorId());
        }
      }
    }
    return owner;
  }

  /** True when the target equals the current layout: nothing to do. */
  public boolean isEmpty() {
    return fragments.isEmpty();
  }

  /** Actors added over all fragments. */
  public int addedActors() {
    return fragments.values().stream().mapToInt(d -> d.added().size()).sum();
  }

  /** Actors dropped over all fragments. */
  public int droppedActors() {
    return fragments.values().stream().mapToInt(d -> d.dropped().size()).sum();
  }

  /**
   * A human-readable diff for {@code tide ctl reschedule --dry-run}: per changed fragment, the actor
   * count before → after, then added ({@code +}), changed ({@code ~}) and dropped ({@code -}) actors with
   * their workers and RLE vnode ranges (or splits of a source).
   */
  public String render() {
    StringBuilder sb = new StringBuilder("job '").append(jobName).append("' (id ").append(jobId).append("): ");
    if (isEmpty()) {
      return sb.append("no change (the target layout equals the current one)").append('\n').toString();
    }
    sb.append(fragments.size()).append(fragments.size() == 1 ? " fragment changes, " : " fragments change, ")
        .append(addedActors()).append(" actors added, ").append(droppedActors()).append(" dropped, ")
        .append(movedVnodes).append(" vnodes and ").append(movedSplits).append(" splits move\n");
    for (FragmentDiff d : fragments.values()) {
      sb.append("fragment ").append(d.fragmentId()).append(" (").append(switch (d.kind()) {
        case HASH -> "hash, " + d.unitCount() + " vnodes";
        case SOURCE -> "source, " + d.unitCount() + " splits";
        case SINGLETON -> "singleton";
      }).append("): ").append(d.actorsBefore()).append(" -> ").append(d.actorsAfter()).append(" actors");
      if (d.kind() == Kind.SOURCE) {
        sb.append(", ").append(d.movedSplits()).append(" splits move\n");
      } else {
        sb.append(", ").append(d.movedVnodes()).append(d.movedVnodes() == 1 ? " vnode moves\n" : " vnodes move\n");
      }
      boolean source = d.kind() == Kind.SOURCE;
      for (ActorPlacement a : d.added()) {
        sb.append("  + actor ").append(a.actorId()).append(" on worker ").append(a.workerId()).append(": ")
            .append(source ? "splits " + splits(a.splits(), d.unitCount()) : "vnodes " + ranges(a.vnodes())).append('\n');
      }
      for (ActorUpdate u : d.updated()) {
        sb.append("  ~ actor ").append(u.actorId()).append(" on worker ").append(u.workerBefore());
        if (u.workerAfter() != u.workerBefore()) {
          sb.append(" -> ").append(u.workerAfter());
        }
        sb.append(": ");
        if (source) {
          int n = d.unitCount();
          sb.append("splits ").append(splits(u.splitsBefore(), n)).append(" -> ").append(splits(u.splitsAfter(), n));
          change(sb, splits(u.gainedSplits(), n), splits(u.lostSplits(), n), u.gainedSplits().isEmpty(), u.lostSplits().isEmpty());
        } else {
          sb.append("vnodes ").append(ranges(u.vnodesBefore())).append(" -> ").append(ranges(u.vnodesAfter()));
          change(sb, ranges(u.gainedVnodes()), ranges(u.lostVnodes()), u.gainedVnodes().isEmpty(), u.lostVnodes().isEmpty());
        }
        sb.append('\n');
      }
      for (ActorPlacement a : d.dropped()) {
        sb.append("  - actor ").append(a.actorId()).append(" on worker ").append(a.workerId()).append(": hands over ")
            .append(source ? "splits " + splits(a.splits(), d.unitCount()) : "vnodes " + ranges(a.vnodes())).append('\n');
      }
    }
    return sb.toString();
  }

  private static void change(StringBuilder sb, String gained, String lost, boolean noGain, boolean noLoss) {
    if (noGain && noLoss) {
      return;
    }
    sb.append(" (");
    if (!noGain) {
      sb.append("gains ").append(gained);
    }
    if (!noLoss) {
      sb.append(noGain ? "" : ", ").append("loses ").append(lost);
    }
    sb.append(')');
  }

  private static String ranges(VnodeBitmap b) {
    return b.isEmpty() ? "none" : b.toString();
  }

  /** Splits in the run-length form of vnodes, e.g. {@code "0-3,8"}. */
  private static String splits(List<Integer> s, int splitCount) {
    return ranges(VnodeBitmap.of(splitCount, s.stream().mapToInt(Integer::intValue).toArray()));
  }
}
