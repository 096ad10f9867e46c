package dev.tide.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Drops {@code window_end} where {@code window_start} determines it. A TUMBLE or HOP window's end is
 * its start plus the window's size, so
 *
 * <ul>
 *   <li>an aggregation grouped by both of one window groups by the start only, and computes the end
 *       above it ({@code window_start + size}): one key column less in its state and in every hash
 *       of its rows (Nexmark q5 and q8 group by both);
 *   <li>a join condition equating two such computed ends, {@code a.s + size = b.s' + size}, is
 *       implied by {@code a.s = b.s'} when the condition also says that, and is dropped: one join key
 *       less (q8 joins on both).
 * </ul>
 *
 * Both rewrites keep every row and column as they were.
 */
final class WindowEnds {
  private WindowEnds() {}

  static RelNode rewrite(RelNode rel) {
    return rel.accept(new RelShuttleImpl() {
      @Override
      public RelNode visit(LogicalAggregate aggregate) {
        RelNode a = super.visit(aggregate);
        RelNode out = a instanceof Aggregate agg ? withoutEnd(agg) : null;
        return out != null ? out : a;
      }

      @Override
      public RelNode visit(LogicalJoin join) {
        RelNode j = super.visit(join);
        RelNode out = j instanceof Join jj ? withoutImpliedEnds(jj) : null;
        return out != null ? out : j;
      }
    });
  }

  /** A field of a relation seen through projections of columns: the node it comes from and its field there. */
  private record Origin(RelNode node, int field) {
    static Origin of(RelNode r, int field) {
      while (r instanceof Project p && p.getProjects().get(field) instanceof RexInputRef ref) {
        field = ref.getIndex();
        r = p.getInput();
      }
      return new Origin(r, field);
    }
  }

  /** The window size literal of a TUMBLE or HOP scan, or null for another node. */
  private static RexLiteral size(RelNode n) {
    if (!(n instanceof TableFunctionScan t) || !(t.getCall() instanceof RexCall call) || t.getInputs().size() != 1) {
      return null;
    }
    List<RexLiteral> intervals = new ArrayList<>();
    for (RexNode o : call.getOperands()) {
      if (o instanceof RexLiteral l && SqlTypeName.INTERVAL_TYPES.contains(l.getTypeName())) {
        intervals.add(l);
      }
    }
    return switch (call.getOperator().getName().toUpperCase(Locale.ROOT)) {
      case "TUMBLE" -> intervals.size() == 1 ? intervals.get(0) : null;
      case "HOP" -> intervals.size() == 2 ? intervals.get(1) : null; // Calcite's HOP: slide, then size
      default -> null;
    };
  }

  /** {@code a} grouped without a window end whose start it also groups by, the end computed above; or null. */
  private static RelNode withoutEnd(Aggregate a) {
    if (a.getGroupSets().size() != 1) {
      return null;
    }
    List<Integer> keys = a.getGroupSet().asList();
    for (int ei = 0; ei < keys.size(); ei++) {
      Origin end = Origin.of(a.getInput(), keys.get(ei));
      RexLiteral size = size(end.node());
      int width = end.node() instanceof TableFunctionScan t ? t.getInputs().get(0).getRowType().getFieldCount() : -1;
      if (size == null || end.field() != width + 1) {
        continue;
      }
      for (int si = 0; si < keys.size(); si++) {
        Origin start = Origin.of(a.getInput(), keys.get(si));
        if (start.node() == end.node() && start.field() == width) {
          return rebuilt(a, ei, si, size);
        }
      }
    }
    return null;
  }

  /** {@code a} without group key {@code ei}, which is key {@code si} plus {@code size}. */
  private static RelNode rebuilt(Aggregate a, int ei, int si, RexLiteral size) {
    ImmutableBitSet group = a.getGroupSet().clear(a.getGroupSet().nth(ei));
    Aggregate narrower = a.copy(a.getTraitSet(), a.getInput(), group, null, a.getAggCallList());
    RexBuilder rex = a.getCluster().getRexBuilder();
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < a.getRowType().getFieldCount(); i++) {
      if (i == ei) {
        RexNode start = rex.makeInputRef(narrower, si < ei ? si : si - 1);
        exprs.add(rex.makeCall(a.getRowType().getFieldList().get(i).getType(), SqlStdOperatorTable.DATETIME_PLUS,
            List.of(start, size)));
      } else {
        exprs.add(rex.makeInputRef(narrower, i < ei ? i : i - 1));
      }
    }
    return LogicalProject.create(narrower, List.of(), exprs, a.getRowType().getFieldNames(), java.util.Set.of());
  }

  /** A field's expression over the first node below it that is not a projection of columns. */
  private record Defined(RelNode over, RexNode expr) {
    static Defined of(RelNode r, int field) {
      while (r instanceof Project p) {
        RexNode e = p.getProjects().get(field);
        if (!(e instanceof RexInputRef ref)) {
          return new Defined(p.getInput(), e);
        }
        field = ref.getIndex();
        r = p.getInput();
      }
      return new Defined(r, new RexInputRef(field, r.getRowType().getFieldList().get(field).getType()));
    }

    /** The column x of {@code x + c} with a literal c, or -1. */
    int plusOf(RexLiteral[] c) {
      if (expr instanceof RexCall call && call.getKind() == SqlKind.PLUS && call.getOperands().size() == 2
          && call.getOperands().get(0) instanceof RexInputRef x && call.getOperands().get(1) instanceof RexLiteral l) {
        c[0] = l;
        return x.getIndex();
      }
      return -1;
    }
  }

  /** {@code j} without equalities of computed window ends that its equalities of the starts imply; or null. */
  private static RelNode withoutImpliedEnds(Join j) {
    int leftWidth = j.getLeft().getRowType().getFieldCount();
    List<RexNode> conjuncts = RelOptUtil.conjunctions(j.getCondition());
    List<int[]> equalities = new ArrayList<>();
    for (RexNode c : conjuncts) {
      equalities.add(sides(c, leftWidth));
    }
    List<RexNode> kept = new ArrayList<>();
    for (int i = 0; i < conjuncts.size(); i++) {
      if (!implied(j, equalities, i, leftWidth)) {
        kept.add(conjuncts.get(i));
      }
    }
    if (kept.size() == conjuncts.size()) {
      return null;
    }
    RexNode condition = RexUtil.composeConjunction(j.getCluster().getRexBuilder(), kept);
    return j.copy(j.getTraitSet(), condition, j.getLeft(), j.getRight(), j.getJoinType(), j.isSemiJoinDone());
  }

  /** {left field, right field} of an equality between the sides, or null. */
  private static int[] sides(RexNode c, int leftWidth) {
    if (c instanceof RexCall call && call.getKind() == SqlKind.EQUALS && call.getOperands().get(0) instanceof RexInputRef x
        && call.getOperands().get(1) instanceof RexInputRef y && (x.getIndex() < leftWidth) != (y.getIndex() < leftWidth)) {
      int l = Math.min(x.getIndex(), y.getIndex());
      int r = Math.max(x.getIndex(), y.getIndex()) - leftWidth;
      return new int[] {l, r};
    }
    return null;
  }

  /** Whether equality {@code i} is {@code a.x + c = b.y + c} where another equality says {@code a.x = b.y}. */
  private static boolean implied(Join j, List<int[]> equalities, int i, int leftWidth) {
    int[] e = equalities.get(i);
    if (e == null) {
      return false;
    }
    Defined l = Defined.of(j.getLeft(), e[0]);
    Defined r = Defined.of(j.getRight(), e[1]);
    RexLiteral[] lc = new RexLiteral[1];
    RexLiteral[] rc = new RexLiteral[1];
    int lx = l.plusOf(lc);
    int ry = r.plusOf(rc);
    if (lx < 0 || ry < 0 || !lc[0].getValueAs(BigDecimal.class).equals(rc[0].getValueAs(BigDecimal.class))
        || !lc[0].getType().equals(rc[0].getType())) {
      return false;
    }
    for (int k = 0; k < equalities.size(); k++) {
      int[] s = equalities.get(k);
      if (k == i || s == null) {
        continue;
      }
      Defined ls = Defined.of(j.getLeft(), s[0]);
      Defined rs = Defined.of(j.getRight(), s[1]);
      if (ls.over() == l.over() && rs.over() == r.over() && ls.expr() instanceof RexInputRef a && a.getIndex() == lx
          && rs.expr() instanceof RexInputRef b && b.getIndex() == ry) {
        return true;
      }
    }
    return false;
  }
}
