package dev.tide.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * Rewrites a join of a relation R with the maximum of one of its columns per group of R,
 *
 * <pre>
 *   R JOIN (SELECT k, MAX(v) AS m FROM R GROUP BY k) M ON R.k = M.k AND R.v = M.m   -- or R.v >= M.m
 * </pre>
 *
 * into the rows of R that rank first in their group, {@code RANK() OVER (PARTITION BY k ORDER BY v
 * DESC) = 1}, which {@link StreamPlanner} lowers to a group top. That is how Nexmark q5 and q7 are
 * published ("the bids with each window's highest price"); as written they read R twice, aggregate
 * it twice and keep every row of R in join state, where the group top reads it once and, over an
 * append-only R, keeps each group's leaders only.
 *
 * <p>Exact: R's rows with a null key or a null v never join (equality with null is unknown; MAX
 * skips nulls), so they are filtered out before ranking; every group of R has a maximum, reached
 * by the rows ranking first (ties included), and M's columns equal those rows' k and v. R must be
 * the same relational expression on both sides (the same tree, up to projections of columns).
 */
final class GroupTops {
  private GroupTops() {}

  /** {@code rel} with every such join, at any depth, rewritten. */
  static RelNode rewrite(RelNode rel) {
    return rel.accept(new RelShuttleImpl() {
      @Override
      public RelNode visit(LogicalJoin join) {
        Join j = (Join) super.visit(join);
        RelNode top = groupTop(j, true);
        if (top == null) {
          top = groupTop(j, false);
        }
        return top != null ? top : j;
      }
    });
  }

  /** A relation seen through projections of columns only: the core and, per field, the core's field it is. */
  private record Core(RelNode rel, int[] fields) {
    static Core of(RelNode r) {
      int[] map = identity(r.getRowType().getFieldCount());
      while (r instanceof Project p && p.getProjects().stream().allMatch(e -> e instanceof RexInputRef)) {
        int[] next = new int[map.length];
        for (int i = 0; i < map.length; i++) {
          next[i] = ((RexInputRef) p.getProjects().get(map[i])).getIndex();
        }
        map = next;
        r = p.getInput();
      }
      return new Core(r, map);
    }

    boolean sameAs(Core other) {
      return RelOptUtil.toString(rel).equals(RelOptUtil.toString(other.rel));
    }
  }

  /**
   * The rewrite of {@code j} with R on its left ({@code relLeft}) or right, the maximum on the other
   * side; null if {@code j} is not such a join.
   */
  private static RelNode groupTop(Join j, boolean relLeft) {
    if (j.getJoinType() != JoinRelType.INNER) {
      return null;
    }
    RelNode relSide = relLeft ? j.getLeft() : j.getRight();
    RelNode maxSide = relLeft ? j.getRight() : j.getLeft();
    Core maxView = Core.of(maxSide);
    if (!(maxView.rel() instanceof Aggregate a) || a.getGroupSets().size() != 1 || a.getAggCallList().size() != 1) {
      return null;
    }
    AggregateCall max = a.getAggCallList().get(0);
    if (max.getAggregation().getKind() != SqlKind.MAX || max.isDistinct() || max.hasFilter() || max.getArgList().size() != 1) {
      return null;
    }
    Core r = Core.of(relSide);
    Core aggInput = Core.of(a.getInput());
    if (!r.sameAs(aggInput)) {
      return null;
    }
    int keys = a.getGroupCount();
    int leftWidth = j.getLeft().getRowType().getFieldCount();
    // For each of M's fields (its keys, then the maximum), the field of R that equals it in a joined row.
    int[] relFieldOfAgg = new int[keys + 1];
    Arrays.fill(relFieldOfAgg, -1);
    for (RexNode c : RelOptUtil.conjunctions(j.getCondition())) {
      if (!(c instanceof RexCall call) || call.getOperands().size() != 2
          || !(call.getOperands().get(0) instanceof RexInputRef x) || !(call.getOperands().get(1) instanceof RexInputRef y)) {
        return null;
      }
      boolean xLeft = x.getIndex() < leftWidth;
      if (xLeft == (y.getIndex() < leftWidth)) {
        return null; // both on one side
      }
      RexInputRef relRef = xLeft == relLeft ? x : y;
      RexInputRef maxRef = relRef == x ? y : x;
      int relField = relRef.getIndex() - (relLeft ? 0 : leftWidth);
      int aggField = maxView.fields()[maxRef.getIndex() - (relLeft ? leftWidth : 0)];
      int aggInputField = aggField < keys ? a.getGroupSet().nth(aggField) : max.getArgList().get(0);
      if (r.fields()[relField] != aggInput.fields()[aggInputField]) {
        return null; // not the same column of R
      }
      SqlKind kind = relRef == x ? call.getKind() : call.getKind().reverse();
      boolean ok = kind == SqlKind.EQUALS || (aggField == keys && kind == SqlKind.GREATER_THAN_OR_EQUAL);
      if (!ok) {
        return null;
      }
      relFieldOfAgg[aggField] = relField;
    }
    if (Arrays.stream(relFieldOfAgg).anyMatch(f -> f < 0)) {
      return null; // a key or the maximum unmatched: another join
    }

    RelBuilder b = RelFactories.LOGICAL_BUILDER.create(j.getCluster(), null);
    RexBuilder rex = b.getRexBuilder();
    b.push(relSide);
    List<RexNode> notNull = new ArrayList<>();
    for (int f : relFieldOfAgg) {
      if (relSide.getRowType().getFieldList().get(f).getType().isNullable()) {
        notNull.add(b.isNotNull(b.field(f)));
      }
    }
    if (!notNull.isEmpty()) {
      b.filter(notNull);
    }
    int width = relSide.getRowType().getFieldCount();
    List<RexNode> partition = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      partition.add(b.field(relFieldOfAgg[k]));
    }
    List<RexNode> ranked = new ArrayList<>(b.fields());
    ranked.add(b.aggregateCall(SqlStdOperatorTable.RANK).over().partitionBy(partition)
        .orderBy(b.nullsFirst(b.desc(b.field(relFieldOfAgg[keys])))).as("_rank"));
    b.project(ranked);
    b.filter(b.equals(b.field(width), b.literal(1)));
    // The join's row: R's fields, and M's as the fields of R they equal.
    List<RexNode> out = new ArrayList<>();
    List<RelDataTypeField> joined = j.getRowType().getFieldList();
    for (int i = 0; i < joined.size(); i++) {
      boolean fromRel = (i < leftWidth) == relLeft;
      int side = i < leftWidth ? i : i - leftWidth;
      int f = fromRel ? side : relFieldOfAgg[maxView.fields()[side]]; // M's fields are its keys and the maximum
      out.add(rex.ensureType(joined.get(i).getType(), b.field(f), true));
    }
    b.project(out, j.getRowType().getFieldNames(), true);
    return b.build();
  }

  private static int[] identity(int n) {
    int[] f = new int[n];
    for (int i = 0; i < n; i++) {
      f[i] = i;
    }
    return f;
  }
}
