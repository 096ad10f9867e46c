package dev.tide.stream.plan;

import dev.tide.proto.plan.Call;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.PlanNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/** What the compiler's plan rewrites ({@link ProjectFusion}, {@link SessionAggFusion}, {@link JoinFilterFusion}, {@link SourcePruning}) share. */
final class PlanRewrites {
  private PlanRewrites() {}

  /** How many nodes read each node. */
  static int[] readers(List<PlanNode> nodes) {
    int[] readers = new int[nodes.size()];
    for (PlanNode n : nodes) {
      n.getInputsList().forEach(i -> readers[i]++);
    }
    return readers;
  }

  /** The nodes not {@code removed}, renumbered {@code 0..n-1} in order (each node's inputs mapped to the new ids). */
  static List<PlanNode> without(List<PlanNode> out, boolean[] removed) {
    int[] newId = new int[out.size()];
    List<PlanNode> kept = new ArrayList<>();
    for (int id = 0; id < out.size(); id++) {
      if (!removed[id]) {
        newId[id] = kept.size();
        kept.add(out.get(id));
      }
    }
    List<PlanNode> renumbered = new ArrayList<>(kept.size());
    for (PlanNode n : kept) {
      PlanNode.Builder b = n.toBuilder().setId(newId[n.getId()]).clearInputs();
      n.getInputsList().forEach(i -> b.addInputs(newId[i]));
      renumbered.add(b.build());
    }
    return renumbered;
  }

  /** {@code e} with each column reference {@code i} replaced by {@code f(i)}. */
  static Expr mapRefs(Expr e, IntUnaryOperator f) {
    return switch (e.getKindCase()) {
      case INPUT_REF -> e.toBuilder().setInputRef(f.applyAsInt(e.getInputRef())).build();
      case CALL -> {
        Call.Builder call = e.getCall().toBuilder().clearArgs();
        e.getCall().getArgsList().forEach(a -> call.addArgs(mapRefs(a, f)));
        yield e.toBuilder().setCall(call).build();
      }
      default -> e;
    };
  }
}
