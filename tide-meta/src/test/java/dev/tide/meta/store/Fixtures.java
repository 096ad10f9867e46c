package dev.tide.meta.store;

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
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import com.google.protobuf.ByteString;
import java.util.List;

/** Hand-built jobs, layouts and versions for the store tests. */
final class Fixtures {
  private Fixtures() {}

  static final List<Worker> WORKERS = List.of(new Worker(1, "10.0.0.1:7001", 2), new Worker(2, "10.0.0.2:7001", 3));

  /** Source (4 splits) → HASH → aggregation → SIMPLE → singleton top; vnode count 256. */
  static JobDefinition job(int jobId, String name) {
    int t = jobId * 1000;
    PlanNode source = PlanNode.newBuilder().setId(0)
        .setSource(SourceNode.newBuilder().setConnector("nexmark").setTable("bid").setSplitCount(4).setStateTableId(t)).build();
    PlanNode merge1 = PlanNode.newBuilder().setId(10).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(0)).build();
    PlanNode agg = PlanNode.newBuilder().setId(1).addInputs(10).setHashAgg(HashAggNode.newBuilder().addGroupKeys(0).setResultTableId(t + 1)).build();
    PlanNode merge2 = PlanNode.newBuilder().setId(11).setMerge(MergeNode.newBuilder().setUpstreamFragmentId(1)).build();
    PlanNode top = PlanNode.newBuilder().setId(2).addInputs(11).setMaterialize(MaterializeNode.newBuilder().setName(name + "_mv").setTableId(t + 2)).build();
    return JobDefinition.newBuilder().setJobId(jobId).setName(name).setVnodeCount(256)
        .addFragments(Fragment.newBuilder().setFragmentId(0).setHasSource(true).addNodes(source).addStateTableIds(t))
        .addFragments(Fragment.newBuilder().setFragmentId(1).addNodes(merge1).addNodes(agg).addDistKey(0).addStateTableIds(t + 1))
        .addFragments(Fragment.newBuilder().setFragmentId(2).setSingleton(true).addNodes(merge2).addNodes(top).addStateTableIds(t + 2))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(0).setDownstreamFragmentId(1).setType(DispatchType.HASH).addDistKey(0))
        .addEdges(FragmentEdge.newBuilder().setUpstreamFragmentId(1).setDownstreamFragmentId(2).setType(DispatchType.SIMPLE))
        .build();
  }

  /** The initial layout of {@code def} at {@code parallelism} on {@link #WORKERS}, actor ids from {@code firstActorId}. */
  static JobLayout layout(JobDefinition def, int parallelism, long firstActorId) {
    long[] next = {firstActorId};
    return Layouts.initial(def, WORKERS, parallelism, () -> next[0]++);
  }

  /** A version with one L0 SST per epoch in {@code (0, epoch]}. */
  static StoreVersion version(long id, long epoch) {
    Level.Builder l0 = Level.newBuilder().setLevelIndex(0);
    for (long e = epoch; e >= 1; e--) {
      l0.addSsts(SstInfo.newBuilder().setId(100 + e).setObjectPath("sst/" + (100 + e) + ".sst")
          .setSmallestKey(ByteString.copyFrom(new byte[] {0, 0, 3, (byte) 232, 0, 1}))
          .setLargestKey(ByteString.copyFrom(new byte[] {0, 0, 3, (byte) 232, 0, (byte) 200, 7}))
          .setMinEpoch(e).setMaxEpoch(e).setFileSize(4096 * e).setKeyCount(10 * e).addTableIds(1000).addTableIds(1001));
    }
    return StoreVersion.newBuilder().setId(id).setMaxCommittedEpoch(epoch).setL0(l0)
        .addLevels(Level.newBuilder().setLevelIndex(1)).build();
  }
}
