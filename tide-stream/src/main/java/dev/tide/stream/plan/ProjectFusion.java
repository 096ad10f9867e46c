package dev.tide.stream.plan;

import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.ProjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuses a projection into the projection it reads, so that a row is copied once where a planner
 * (SQL's renames, hidden key columns, output naming) stacked several projections.
 *
 * <p>Rule: a project P reading a project Q that no other node reads becomes one project over Q's
 * input when P only selects columns (each of its expressions a column reference: P's expressions
 * become the Q expressions they select) or Q does (P's column references are renumbered onto Q's
 * input). No expression is evaluated more often than before. P keeps its id, names, schema, stream
 * key and append-only flag, so the rewrite is invisible past it; Q is removed and the node ids are
 * renumbered {@code 0..n-1} in order (inputs still earlier).
 */
final class ProjectFusion {
  private ProjectFusion() {}

  /** The plan's nodes (ids {@code 0..n-1} in order, inputs earlier) with projections fused. */
  static List<PlanNode> apply(List<PlanNode> nodes) {
    List<PlanNode> out = new ArrayList<>(nodes);
    int[] readers = new int[nodes.size()];
    for (PlanNode n : nodes) {
      n.getInputsList().forEach(i -> readers[i]++);
    }
    boolean[] removed = new boolean[nodes.size()];
    for (int id = 0; id < out.size(); id++) {
      PlanNode p = out.get(id);
      while (p.hasProject() && p.getInputsCount() == 1 && out.get(p.getInputs(0)).hasProject()
          && readers[p.getInputs(0)] == 1) {
        PlanNode q = out.get(p.getInputs(0));
        List<Expr> fused = fuse(p.getProject().getExprsList(), q.getProject().getExprsList());
        if (fused == null) {
          break;
        }
        removed[q.getId()] = true;
        p = p.toBuilder().setInputs(0, q.getInputs(0))
            .setProject(ProjectNode.newBuilder().addAllExprs(fused).addAllNames(p.getProject().getNamesList())).build();
      }
      out.set(id, p);
    }
    return PlanRewrites.without(out, removed);
  }

  /** The expressions of {@code outer} over {@code inner}'s input, or null when neither only selects columns. */
  private static List<Expr> fuse(List<Expr> outer, List<Expr> inner) {
    if (outer.stream().allMatch(Expr::hasInputRef)) {
      int[] uses = new int[inner.size()];
      outer.forEach(e -> uses[e.getInputRef()]++);
      boolean once = true;
      for (int i = 0; i < uses.length; i++) {
        once &= uses[i] <= 1 || inner.get(i).hasInputRef() || inner.get(i).hasLiteral();
      }
      if (once) {
        return outer.stream().map(e -> inner.get(e.getInputRef())).toList();
      }
    }
    if (inner.stream().allMatch(Expr::hasInputRef)) {
      return outer.stream().map(e -> PlanRewrites.mapRefs(e, i -> inner.get(i).getInputRef())).toList();
    }
    return null;
  }

  /** {@code e} with each column reference {@code i} replaced by {@code refs[i]}'s column. */

}
