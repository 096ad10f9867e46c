package dev.tide.stream.plan;

import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.PlanNodeOrBuilder;

/**
 * Which streams are append-only: their changelog holds inserts only, never a delete or an update.
 * Derived from what each operator emits. Sources emit inserts; filter, project and window keep
 * their input's ops (a source that follows another job's view emits its changes, deletes included, so it is not); (a filter halves only update pairs, a hop window turns only update pairs into
 * delete + insert); an inner join emits its input row's op against each match, so it is append-only
 * when both inputs are (an outer join never is: a match retracts the null-padded row); a hash aggregation emits update pairs and deletes as its groups change, and
 * a group top deletes its leaders when a better row arrives (or they leave its input), so their outputs never are. A top
 * filter only drops rows. An aggregation that emits on window close emits each group once, as an
 * insert, so its output is append-only. A local aggregation (compiler-inserted) emits inserts of partial states
 * whose deltas are all non-negative exactly when its input is append-only.
 */
public final class AppendOnly {
  private AppendOnly() {}

  /**
   * Whether the output of a node of this kind is append-only, given whether each of its inputs is.
   *
   * @param inputs one flag per input of the node, in order
   */
  public static boolean derive(PlanNodeOrBuilder node, boolean[] inputs) {
    return switch (node.getKindCase()) {
      case SOURCE -> !node.getSource().hasUpstream() && !node.getSource().getConnector().equals("table"); // deletes, updates
      case HASH_AGG -> node.getHashAgg().getEmitOnWindowClose();
      case FILTER, PROJECT, WINDOW, TOP_FILTER, MATERIALIZE, SINK, DIGEST, LOCAL_AGG -> inputs[0];
      case HASH_JOIN -> inputs[0] && inputs[1] && node.getHashJoin().getJoinType() == JoinType.INNER;
      default -> false;
    };
  }
}
