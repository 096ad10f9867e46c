package dev.tide.stream.plan;

import dev.tide.proto.plan.Call;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.FilterNode;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.PlanNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves the conditions of a filter above an inner join that read one side's columns only into the
 * join ({@code HashJoinNode.left_filter}/{@code right_filter}): the join then builds no output row
 * for a match the filter would drop. The planner leaves such a filter above the join on purpose
 * when the side is unique on its key and append-only (q20's auctions of one category): below, the
 * other side's rows of the rejected keys would wait in state for good; above, each finds its one
 * row and is settled. Fused, the settling stays and the rejected matches cost nothing.
 *
 * <p>Rule: a filter F reading an inner join J that no other node reads; F's condition, split at its
 * ANDs, gives J each side's conjuncts (right ones renumbered onto the right input); F keeps the
 * rest, or is removed if none is left (its readers read J, whose schema and stream key F had). Ids
 * are renumbered {@code 0..n-1} in order.
 */
final class JoinFilterFusion {
  private JoinFilterFusion() {}

  static List<PlanNode> apply(List<PlanNode> nodes) {
    int[] readers = PlanRewrites.readers(nodes);
    List<PlanNode> out = new ArrayList<>(nodes);
    boolean[] removed = new boolean[nodes.size()];
    int[] redirect = new int[nodes.size()];
    for (int i = 0; i < redirect.length; i++) {
      redirect[i] = i;
    }
    boolean any = false;
    for (PlanNode f : nodes) {
      if (!f.hasFilter() || !nodes.get(f.getInputs(0)).hasHashJoin() || readers[f.getInputs(0)] != 1) {
        continue;
      }
      PlanNode j = nodes.get(f.getInputs(0));
      HashJoinNode join = j.getHashJoin();
      if (join.getJoinType() != JoinType.INNER || join.hasLeftFilter() || join.hasRightFilter()) {
        continue;
      }
      int leftWidth = nodes.get(j.getInputs(0)).getSchemaCount();
      List<Expr> left = new ArrayList<>();
      List<Expr> right = new ArrayList<>();
      List<Expr> rest = new ArrayList<>();
      for (Expr c : conjuncts(f.getFilter().getCondition())) {
        int[] range = refRange(c);
        if (range[1] < 0) {
          rest.add(c); // reads no column: kept above
        } else if (range[1] < leftWidth) {
          left.add(c);
        } else if (range[0] >= leftWidth) {
          right.add(PlanRewrites.mapRefs(c, i -> i - leftWidth));
        } else {
          rest.add(c);
        }
      }
      if (left.isEmpty() && right.isEmpty()) {
        continue;
      }
      HashJoinNode.Builder b = join.toBuilder();
      if (!left.isEmpty()) {
        b.setLeftFilter(and(left));
      }
      if (!right.isEmpty()) {
        b.setRightFilter(and(right));
      }
      out.set(j.getId(), j.toBuilder().setHashJoin(b).build());
      if (rest.isEmpty()) {
        removed[f.getId()] = true;
        redirect[f.getId()] = j.getId();
      } else {
        out.set(f.getId(), f.toBuilder().setFilter(FilterNode.newBuilder().setCondition(and(rest))).build());
      }
      any = true;
    }
    if (!any) {
      return nodes;
    }
    for (int id = 0; id < out.size(); id++) {
      PlanNode n = out.get(id);
      PlanNode.Builder b = n.toBuilder().clearInputs();
      n.getInputsList().forEach(in -> b.addInputs(redirect[in]));
      out.set(id, b.build());
    }
    return PlanRewrites.without(out, removed);
  }

  private static List<Expr> conjuncts(Expr e) {
    if (e.hasCall() && e.getCall().getFunction().equals("and")) {
      List<Expr> out = new ArrayList<>();
      e.getCall().getArgsList().forEach(a -> out.addAll(conjuncts(a)));
      return out;
    }
    return List.of(e);
  }

  private static Expr and(List<Expr> conjuncts) {
    Expr e = conjuncts.get(0);
    for (int i = 1; i < conjuncts.size(); i++) {
      e = Expr.newBuilder().setType(e.getType()).setCall(Call.newBuilder().setFunction("and").addArgs(e).addArgs(conjuncts.get(i))).build();
    }
    return e;
  }

  /** The least and greatest column {@code e} reads; {@code {MAX_VALUE, -1}} if none. */
  private static int[] refRange(Expr e) {
    int[] r = {Integer.MAX_VALUE, -1};
    visit(e, r);
    return r;
  }

  private static void visit(Expr e, int[] r) {
    if (e.hasInputRef()) {
      r[0] = Math.min(r[0], e.getInputRef());
      r[1] = Math.max(r[1], e.getInputRef());
    } else if (e.hasCall()) {
      e.getCall().getArgsList().forEach(a -> visit(a, r));
    }
  }

}
