package dev.tide.meta.scale;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.ActorPlacement;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.MaterializeNode;
import dev.tide.proto.plan.MergeNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/** Hand-built jobs and invariant checks shared by the planner tests. */
public final class Jobs {
  private Jobs() {}

  public static final int SOURCE = 0;
  public static final int AGG = 1;
  public static final int MIRROR = 2;
  public static final int SINGLE = 3;

  /**
   * Fragment 0: a source with {@code splitCount} splits; HASH to fragment 1 (an aggregation); 1 feeds
   * fragment 2 by NO_SHUFFLE (ensemble [1, 2]); 2 feeds the singleton fragment 3 by SIMPLE.
   */
  public static JobDefinition job(int vnodeCount, int splitCount) {
    PlanNode source = PlanNode.newBuilder().setId(0)
        .setSource(SourceNode.newBuilder().setConnector("nexmark").setTable("bid").setSplitCount(splitCount).setStateTableId(100)).build();
    PlanNode merge1 = PlanNode.newBuilder().setId(10).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(0)).build();
    PlanNode agg = PlanNode.newBuilder().setId(1).addInputs(10).setHashAgg(HashAggNode.newBuilder().addGroupKeys(0).setResultTableId(101)).build();
    PlanNode merge2 = PlanNode.newBuilder().setId(11).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(1)).build();
    PlanNode mv = PlanNode.newBuilder().setId(2).addInputs(11).setMaterialize(MaterializeNode.newBuilder().setName("mv").setTableId(102)).build();
    PlanNode merge3 = PlanNode.newBuilder().setId(12).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(2)).build();
    PlanNode top = PlanNode.newBuilder().setId(3).addInputs(12).setMaterialize(MaterializeNode.newBuilder().setName("top").setTableId(103)).build();
    return JobDefinition.newBuilder().setJobId(7).setName("q").setVnodeCount(vnodeCount)
        .addFragments(Fragment.newBuilder().setFragmentId(SOURCE).setHasSource(true).addNodes(source).addStateTableIds(100))
        .addFragments(Fragment.newBuilder().setFragmentId(AGG).addNodes(merge1).addNodes(agg).addDistKey(0).addStateTableIds(101))
        .addFragments(Fragment.newBuilder().setFragmentId(MIRROR).addNodes(merge2).addNodes(mv).addStateTableIds(102))
        .addFragments(Fragment.newBuilder().setFragmentId(SINGLE).setSingleton(true).addNodes(merge3).addNodes(top).addStateTableIds(103))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(SOURCE).setDownstreamFragmentId(AGG).setType(DispatchType.HASH).addDistKey(0))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(AGG).setDownstreamFragmentId(MIRROR).setType(DispatchType.NO_SHUFFLE))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(MIRROR).setDownstreamFragmentId(SINGLE).setType(DispatchType.SIMPLE))
        .build();
  }

  static List<Worker> workers(int... idsAndSlots) {
    List<Worker> out = new ArrayList<>();
    for (int i = 0; i < idsAndSlots.length; i += 2) {
      out.add(new Worker(idsAndSlots[i], "w" + idsAndSlots[i], idsAndSlots[i + 1]));
    }
    return out;
  }

  /** Actor ids 1, 2, 3, ... */
  static final class Ids implements LongSupplier {
    long next;

    Ids(long first) {
      this.next = first;
    }

    @Override
    public long getAsLong() {
      return next++;
    }
  }

  static LongSupplier noIds() {
    return () -> {
      throw new AssertionError("no actor id may be drawn");
    };
  }

  static JobLayout initial(JobDefinition job, List<Worker> workers, int parallelism, Ids ids) {
    return Layouts.initial(job, workers, parallelism, ids);
  }

  /** Every structural invariant a planned layout must satisfy. */
  public static void checkInvariants(JobDefinition job, JobLayout layout, boolean balanced) {
    TreeSet<Long> ids = new TreeSet<>();
    for (ActorPlacement a : layout.allActors()) {
      if (!ids.add(a.actorId())) {
        throw new AssertionError("actor id " + a.actorId() + " used twice in " + layout);
      }
    }
    for (Fragment f : job.getFragmentsList()) {
      int fid = f.getFragmentId();
      List<ActorPlacement> actors = layout.actors(fid);
      if (actors.isEmpty()) {
        throw new AssertionError("fragment " + fid + " has no actor");
      }
      if (f.getSingleton() && actors.size() != 1) {
        throw new AssertionError("singleton fragment " + fid + " has " + actors.size() + " actors");
      }
      if (actors.size() > Layouts.maxParallelism(job, f)) {
        throw new AssertionError("fragment " + fid + " has " + actors.size() + " actors, above its cap");
      }
      int units = f.getSingleton() ? 1 : job.getVnodeCount();
      checkPartition("vnodes of fragment " + fid, units, actors.stream().map(ActorPlacement::vnodes).toList(), balanced);
      int splits = 0;
      for (PlanNode n : f.getNodesList()) {
        if (n.hasSource()) {
          splits = n.getSource().getSplitCount();
        }
      }
      if (splits > 0) {
        List<VnodeBitmap> sets = new ArrayList<>();
        for (ActorPlacement a : actors) {
          sets.add(VnodeBitmap.of(splits, a.splits().stream().mapToInt(Integer::intValue).toArray()));
          if (!a.splits().equals(a.splits().stream().sorted().distinct().toList())) {
            throw new AssertionError("splits of actor " + a.actorId() + " are not a sorted set: " + a.splits());
          }
        }
        checkPartition("splits of fragment " + fid, splits, sets, balanced);
      }
    }
    for (Ensemble e : Ensemble.of(job)) {
      List<ActorPlacement> root = layout.actors(e.root());
      for (int m : e.members()) {
        List<ActorPlacement> mirror = layout.actors(m);
        if (mirror.size() != root.size()) {
          throw new AssertionError("ensemble " + e.members() + ": fragment " + m + " has " + mirror.size() + " actors, root has " + root.size());
        }
        for (int i = 0; i < root.size(); i++) {
          if (mirror.get(i).workerId() != root.get(i).workerId() || !mirror.get(i).vnodes().equals(root.get(i).vnodes())) {
            throw new AssertionError("ensemble " + e.members() + ": actor " + i + " of fragment " + m + " does not mirror the root");
          }
        }
      }
    }
  }

  static void checkPartition(String what, int units, List<VnodeBitmap> sets, boolean balanced) {
    BitSet seen = new BitSet(units);
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (VnodeBitmap s : sets) {
      if (s.vnodeCount() != units) {
        throw new AssertionError(what + ": a set is over " + s.vnodeCount() + " units, expected " + units);
      }
      BitSet b = s.toBitSet();
      if (b.intersects(seen)) {
        throw new AssertionError(what + ": a unit is owned twice");
      }
      seen.or(b);
      min = Math.min(min, s.cardinality());
      max = Math.max(max, s.cardinality());
    }
    if (seen.cardinality() != units) {
      throw new AssertionError(what + ": " + (units - seen.cardinality()) + " units have no owner");
    }
    if (balanced && max - min > 1) {
      throw new AssertionError(what + ": unbalanced, sizes from " + min + " to " + max);
    }
  }
}
