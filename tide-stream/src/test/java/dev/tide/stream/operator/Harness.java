package dev.tide.stream.operator;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.ManualClock;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.StateStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.plan.Types;
import dev.tide.stream.state.MemoryObjectStore;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs single operators of a compiled plan outside any actor: one actor owning every vnode, over a
 * state store backed by an in-memory object store.
 */
public final class Harness {
  public final JobDefinition job;
  public final StateStore store;
  private final Plan plan;
  private long epoch = 1;

  public Harness(Plan plan) {
    this.plan = plan;
    this.job = JobCompiler.compile(plan, 7, 256, 1000);
    AtomicLong ids = new AtomicLong();
    this.store = new StateStore(new MemoryObjectStore(), new BlockCache(1 << 20), "state", ids::incrementAndGet);
  }

  /** The first node of this kind in the job, with its table ids filled in. */
  public PlanNode node(PlanNode.KindCase kind) {
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(n -> n.getKindCase() == kind).findFirst().orElseThrow();
  }

  /**
   * A hash aggregation the compiler split into phases as the one-phase operator of the user's plan
   * (raw input rows), with the compiled table ids: for tests of the one-phase path.
   */
  public PlanNode onePhase(PlanNode compiled) {
    HashAggNode c = compiled.getHashAgg();
    HashAggNode.Builder user = plan.getNodes(compiled.getId()).getHashAgg().toBuilder().setResultTableId(c.getResultTableId());
    for (int i = 0; i < c.getCallsCount(); i++) {
      user.setCalls(i, user.getCalls(i).toBuilder().setMinmaxTableId(c.getCalls(i).getMinmaxTableId()));
    }
    return compiled.toBuilder().setHashAgg(user).build();
  }

  /** Column types of input {@code side} of a node as the user's plan has them (before any phase split). */
  public DataType[] planInputTypes(PlanNode n, int side) {
    return Types.types(plan.getNodes(plan.getNodes(n.getId()).getInputs(side)).getSchemaList());
  }

  private Fragment fragmentOf(PlanNode n) {
    return job.getFragmentsList().stream().filter(f -> f.getNodesList().contains(n)).findFirst().orElseThrow();
  }

  /** Column types of input {@code side} of a node. */
  public DataType[] inputTypes(PlanNode n, int side) {
    int in = n.getInputs(side);
    PlanNode input = fragmentOf(n).getNodesList().stream().filter(x -> x.getId() == in).findFirst().orElseThrow();
    return Types.types(input.getSchemaList());
  }

  public ActorContext context(PlanNode n) {
    Fragment f = fragmentOf(n);
    int vnodes = f.getSingleton() ? 1 : job.getVnodeCount();
    Map<Integer, TableCatalog> tables = new TreeMap<>();
    for (TableCatalog t : job.getTablesList()) {
      tables.put(t.getTableId(), t);
    }
    return new ActorContext(1, job.getJobId(), vnodes, VnodeBitmap.full(vnodes), List.of(), tables, store, new ManualClock(0));
  }

  /** The next barrier: ends the current epoch. */
  public Barrier barrier() {
    Barrier b = new Barrier(epoch + 1, epoch, null, 0);
    epoch++;
    return b;
  }
}
