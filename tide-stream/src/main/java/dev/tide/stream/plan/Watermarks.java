package dev.tide.stream.plan;

import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.PlanNodeOrBuilder;
import dev.tide.stream.connector.SourceConnector;
import dev.tide.stream.source.NexmarkSourceOp;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which output columns of a node carry watermarks ({@code actor.Watermark}), given its inputs'. The
 * operators pass watermarks on by the same rules: a source on its event-time column
 * ({@code date_time}); filters and top filters keep their input's; a projection those of the columns
 * it copies; a window adds its start and end when its time column has one; a local aggregation, an
 * aggregation that emits on window close and a group top over an append-only input keep their
 * group keys'; a join the first pair of join key columns with one on both sides, on both output
 * columns (an outer join not on the columns its null-padded rows leave null). Every other operator passes none on (a barrier-emitting aggregation's pending output
 * could be below one).
 */
public final class Watermarks {
  private Watermarks() {}

  /**
   * The watermarked output columns of {@code node}; {@code inputs} holds one set per input, and
   * {@code leftWidth} is the column count of its first input (where a join's right columns start).
   */
  public static Set<Integer> derive(PlanNodeOrBuilder node, List<Set<Integer>> inputs, int leftWidth) {
    Set<Integer> out = new TreeSet<>();
    switch (node.getKindCase()) {
      case SOURCE -> {
        String time = node.getSource().getConnector().equals("nexmark") ? NexmarkSourceOp.EVENT_TIME
            : node.getSource().getOptionsOrDefault(SourceConnector.EVENT_TIME_COLUMN, "");
        for (int i = 0; i < node.getSchemaCount(); i++) {
          if (node.getSchema(i).getName().equals(time)) {
            out.add(i);
          }
        }
      }
      case FILTER, TOP_FILTER, MERGE -> out.addAll(inputs.get(0));
      case PROJECT -> {
        List<Expr> exprs = node.getProject().getExprsList();
        for (int i = 0; i < exprs.size(); i++) {
          if (exprs.get(i).hasInputRef() && inputs.get(0).contains(exprs.get(i).getInputRef())) {
            out.add(i);
          }
        }
      }
      case WINDOW -> {
        out.addAll(inputs.get(0));
        if (inputs.get(0).contains(node.getWindow().getTimeColumn())) {
          out.add(node.getSchemaCount() - 2);
          out.add(node.getSchemaCount() - 1);
        }
      }
      case LOCAL_AGG -> keys(node.getLocalAgg().getGroupKeysList(), inputs.get(0), out);
      case HASH_AGG -> {
        if (node.getHashAgg().getEmitOnWindowClose()) {
          keys(node.getHashAgg().getGroupKeysList(), inputs.get(0), out);
        }
      }
      case GROUP_TOP -> {
        if (!node.getGroupTop().getRetractingInput()) {
          for (int k : node.getGroupTop().getGroupKeysList()) {
            if (inputs.get(0).contains(k)) {
              out.add(k);
            }
          }
        }
      }
      case HASH_JOIN -> {
        List<Integer> left = node.getHashJoin().getLeftKeysList();
        List<Integer> right = node.getHashJoin().getRightKeysList();
        JoinType type = node.getHashJoin().getJoinType();
        for (int k = 0; k < left.size(); k++) {
          if (inputs.get(0).contains(left.get(k)) && inputs.get(1).contains(right.get(k))) {
            // An outer join's padded rows have nulls in the other side's keys: no watermark there.
            if (type == JoinType.INNER || type == JoinType.LEFT_OUTER) {
              out.add(left.get(k));
            }
            if (type == JoinType.INNER || type == JoinType.RIGHT_OUTER) {
              out.add(leftWidth + right.get(k));
            }
            break;
          }
        }
      }
      default -> { }
    }
    return out;
  }

  /** Group key {@code k} is output column {@code k}: it carries its input column's watermark. */
  private static void keys(List<Integer> groupKeys, Set<Integer> input, Set<Integer> out) {
    for (int k = 0; k < groupKeys.size(); k++) {
      if (input.contains(groupKeys.get(k))) {
        out.add(k);
      }
    }
  }
}
