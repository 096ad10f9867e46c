package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.RankKind;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanException;
import dev.tide.stream.source.NexmarkSourceOp;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.logical.LogicalTableFunctionScan;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.Mapping;
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexWindow;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql2rel.RelFieldTrimmer;
import org.apache.calcite.util.Util;

/**
 * Lowers a Calcite logical plan of a view's query onto Tide's {@link PlanBuilder}: scans of sources,
 * projections, filters, hash aggregations (COUNT, SUM, AVG, MIN, MAX), TUMBLE and HOP windows and
 * inner equi-joins. Anything else is refused with "not supported: ...".
 *
 * <p>Each lowered relation is a {@link Stream} and, for each of the relation's fields, the index of
 * the stream column that holds it (streams may carry hidden key columns the relation does not see).
 */
final class StreamPlanner {
  private final PlanBuilder builder;
  private final Map<String, SourceDef> sources;
  private final Map<String, dev.tide.proto.plan.JobDefinition> viewJobs;
  private final RexBuilder rex;
  private final Set<String> used = new TreeSet<>();
  private final String sql;
  private final boolean onWindowClose;
  private int closingAggregations;

  private record Lowered(Stream stream, int[] fields) {
    String name(int field) {
      return stream.schema().field(fields[field]).name();
    }
  }

  private StreamPlanner(String view, Map<String, SourceDef> sources, Map<String, dev.tide.proto.plan.JobDefinition> viewJobs,
      RexBuilder rex, String sql, boolean onWindowClose) {
    this.builder = new PlanBuilder(view).withChangelogs(); // views of other jobs may follow this one
    this.sources = sources;
    this.viewJobs = viewJobs;
    this.rex = rex;
    this.sql = sql;
    this.onWindowClose = onWindowClose;
  }

  private static final Pattern EMIT = Pattern.compile(
      "(?is)\\bEMIT\\s+ON\\s+WINDOW\\s+CLOSE\\s*;?\\s*$");

  /** Whether a view's query ends with {@code EMIT ON WINDOW CLOSE} (which Calcite does not parse). */
  static boolean emitsOnWindowClose(String query) {
    return EMIT.matcher(query).find();
  }

  /** The query with a trailing {@code EMIT ON WINDOW CLOSE} blanked out (positions of the rest unchanged). */
  static String withoutEmit(String query) {
    Matcher m = EMIT.matcher(query);
    return m.find() ? query.substring(0, m.start()) + " ".repeat(query.length() - m.start()) : query;
  }

  /** The plan of a view of {@code rel} named {@code view}, and the sources it reads. */
  record Planned(Plan plan, Set<String> sources) {}

  /**
   * The plan named {@code view} of {@code rel}, its projected output ended by {@code end} (a view, a sink).
   *
   * @param viewJobs the job of each materialized view a query may read, by view name
   * @param sql the query's text, where refusals find the position of what they refuse
   * @param onWindowClose {@code EMIT ON WINDOW CLOSE}: every aggregation grouped by a window column
   *     with a watermark over an append-only input emits each group once, when its window closes
   */
  static Planned plan(String view, RelNode rel, List<String> names, Map<String, SourceDef> sources,
      Map<String, dev.tide.proto.plan.JobDefinition> viewJobs, String sql, boolean onWindowClose, Consumer<Stream> end) {
    StreamPlanner p = new StreamPlanner(view, sources, viewJobs, rel.getCluster().getRexBuilder(), sql, onWindowClose);
    try {
      Lowered l = p.lower(pushDown(WindowEnds.rewrite(GroupTops.rewrite(rel))));
      if (onWindowClose && p.closingAggregations == 0) {
        throw p.unsupported("EMIT ON WINDOW CLOSE without an aggregation grouped by a window (window_start or window_end of"
            + " TUMBLE or HOP over a source's event time) of an append-only input", "emit");
      }
      List<Named> out = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        out.add(new Named(Ex.col(l.name(i)), columnName(names.get(i), i)));
      }
      end.accept(l.stream().project(out));
      return new Planned(p.builder.build(), p.used);
    } catch (PlanException e) {
      throw new SqlException(SqlException.NOT_SUPPORTED, "cannot plan view '" + view + "': " + e.getMessage());
    }
  }

  /**
   * The query with the conditions of filters above joins moved into the joins and, where they read
   * one side only, below them (Calcite's FILTER_INTO_JOIN and JOIN_CONDITION_PUSH, which respect outer
   * joins), so that joins store only the rows that can qualify ({@link #join} lifts a side's filter
   * back above an inner join where below it would keep the other side's rows); then the columns no
   * operator above reads are dropped where they enter (Calcite's RelFieldTrimmer).
   */
  private static RelNode pushDown(RelNode rel) {
    HepProgram program = new HepProgramBuilder()
        .addRuleInstance(CoreRules.FILTER_INTO_JOIN)
        .addRuleInstance(CoreRules.JOIN_CONDITION_PUSH).build();
    HepPlanner planner = new HepPlanner(program);
    planner.setRoot(rel);
    RelNode pushed = planner.findBestExp();
    // Drop the columns no operator above reads, so that joins and windows carry and store no more.
    return new WindowTrimmer(RelFactories.LOGICAL_BUILDER.create(rel.getCluster(), null)).trim(pushed);
  }

  /**
   * Calcite's field trimmer, which keeps every input column of a table function, taught that a
   * window table function (TUMBLE, HOP, SESSION) passes its input's columns through: it needs of
   * its input only the columns read above it, its time column and SESSION's partition keys.
   */
  public static final class WindowTrimmer extends RelFieldTrimmer {
    WindowTrimmer(RelBuilder builder) {
      super(null, builder);
    }

    @Override
    public TrimResult trimFields(LogicalTableFunctionScan t, ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields) {
      if (t.getInputs().size() != 1 || !(t.getCall() instanceof RexCall call)
          || !Set.of("TUMBLE", "HOP", "SESSION").contains(call.getOperator().getName().toUpperCase(Locale.ROOT))) {
        return super.trimFields(t, fieldsUsed, extraFields);
      }
      RelNode input = t.getInputs().get(0);
      int width = input.getRowType().getFieldCount();
      ImmutableBitSet.Builder needed = ImmutableBitSet.builder();
      fieldsUsed.asList().stream().filter(f -> f < width).forEach(needed::set);
      needed.addAll(RelOptUtil.InputFinder.bits(call));
      TrimResult trimmed = trimChild(t, input, needed.build(), extraFields);
      RelNode newInput = trimmed.left;
      Mapping inputMapping = trimmed.right;
      int newWidth = newInput.getRowType().getFieldCount();
      RexNode newCall = call.accept(new RexPermuteInputsShuttle(inputMapping, newInput));
      List<RelDataTypeField> old = t.getRowType().getFieldList();
      RelDataTypeFactory.Builder type = t.getCluster().getTypeFactory().builder().addAll(newInput.getRowType().getFieldList());
      type.add(old.get(width)).add(old.get(width + 1)); // window_start, window_end
      Mapping mapping = Mappings.create(MappingType.INVERSE_SURJECTION, old.size(), newWidth + 2);
      for (int f = 0; f < width; f++) {
        int target = inputMapping.getTargetOpt(f);
        if (target >= 0) {
          mapping.set(f, target);
        }
      }
      mapping.set(width, newWidth);
      mapping.set(width + 1, newWidth + 1);
      RelNode scan = LogicalTableFunctionScan.create(t.getCluster(), List.of(newInput), newCall, t.getElementType(),
          type.build(), null);
      return result(scan, mapping);
    }
  }

  /**
   * A refusal of {@code what}, positioned at the first occurrence of the word {@code anchor} in the
   * query (a function's or keyword's name; case-insensitive), or without a position if it has none.
   */
  private SqlException unsupported(String what, String anchor) {
    Matcher m = Pattern.compile("(?i)(?<![A-Za-z0-9_])" + Pattern.quote(anchor)
        + "(?![A-Za-z0-9_])").matcher(sql);
    return new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + what, m.find() ? m.start() + 1 : 0);
  }

  /** Calcite's names of unnamed expressions (EXPR$1) become expr1. */
  static String columnName(String name, int i) {
    return name.startsWith("EXPR$") ? "expr" + name.substring(5) : name.startsWith("$f") ? "f" + i : name;
  }

  private Lowered lower(RelNode r) {
    if (r instanceof TableScan s) {
      return scan(s);
    }
    if (r instanceof Filter f && f.getInput() instanceof Join j && j.getJoinType() == JoinRelType.INNER) {
      // FROM a, b WHERE a.x = b.y: the condition is the join's, so its equalities become join keys.
      return lower(j.copy(j.getTraitSet(), RexUtil.composeConjunction(rex, List.of(j.getCondition(), f.getCondition())),
          j.getLeft(), j.getRight(), j.getJoinType(), j.isSemiJoinDone()));
    }
    if (r instanceof Filter f && f.getInput() instanceof Project p && ranks(p)) {
      return topN(f, p);
    }
    if (r instanceof Project p && ranks(p)) {
      throw unsupported("ROW_NUMBER(), RANK() or DENSE_RANK() OVER (...) without a rank limit (WHERE rn <= n)", "over");
    }
    if (r instanceof Project p && RexOver.containsOver(p.getProjects(), null)) {
      return overWindow(p);
    }
    if (r instanceof Project p) {
      Lowered in = lower(p.getInput());
      List<Named> exprs = new ArrayList<>();
      for (int i = 0; i < p.getProjects().size(); i++) {
        exprs.add(new Named(ex(p.getProjects().get(i), in), columnName(p.getRowType().getFieldNames().get(i), i)));
      }
      return identity(in.stream().project(exprs), exprs.size());
    }
    if (r instanceof Filter f) {
      Lowered in = lower(f.getInput());
      return new Lowered(in.stream().filter(ex(f.getCondition(), in)), in.fields());
    }
    if (r instanceof Aggregate a) {
      return aggregate(a);
    }
    if (r instanceof Join j) {
      return join(j);
    }
    if (r instanceof TableFunctionScan t) {
      return window(t);
    }
    String kind = r.getRelTypeName().replace("Logical", "");
    String anchor = switch (kind) {
      case "Sort" -> sql.toLowerCase(Locale.ROOT).contains("order by") ? "order" : "limit";
      case "Union" -> "union";
      case "Intersect" -> "intersect";
      case "Minus" -> "except";
      case "Values" -> "values";
      default -> kind;
    };
    throw unsupported(kind + " in a materialized view (e.g. ORDER BY, LIMIT, UNION, VALUES); see docs/sql.md", anchor);
  }

  /**
   * {@code SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY o) AS rn ... WHERE rn <= n}: a top-N
   * per group ({@link PlanBuilder.Grouped#topN}). Conditions of the filter other than the rank limit
   * apply after it, as in SQL (the WHERE sees the numbered rows).
   */
  private Lowered topN(Filter f, Project p) {
    int over = -1;
    for (int i = 0; i < p.getProjects().size(); i++) {
      if (p.getProjects().get(i) instanceof RexOver) {
        if (over >= 0) {
          throw unsupported("two OVER windows in one SELECT", "over");
        }
        over = i;
      } else if (RexOver.containsOver(p.getProjects().get(i))) {
        throw unsupported("an OVER window inside an expression", "over");
      }
    }
    RexOver o = (RexOver) p.getProjects().get(over);
    SqlKind fn = o.getOperator().getKind();
    if (fn != SqlKind.ROW_NUMBER && fn != SqlKind.RANK && fn != SqlKind.DENSE_RANK) {
      throw unsupported(o.getOperator().getName() + "() OVER with a rank limit (ROW_NUMBER(), RANK() and DENSE_RANK() are)",
          o.getOperator().getName());
    }
    Long limit = null;
    List<RexNode> rest = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(f.getCondition())) {
      Long n = rankLimit(c, over);
      if (n != null && limit == null) {
        limit = n;
      } else {
        rest.add(c);
      }
    }
    if (limit == null) {
      throw unsupported("ROW_NUMBER() without a rank limit (WHERE rn <= n, rn < n or rn = 1)", "row_number");
    }
    Lowered input = lower(p.getInput());
    // Keys that are expressions (Calcite inlines a subquery's computed columns) become columns first.
    List<Named> computed = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (RexNode k : o.getWindow().partitionKeys) {
      keys.add(keyColumn(k, input, computed));
    }
    List<String> order = new ArrayList<>();
    for (RexFieldCollation c : o.getWindow().orderKeys) {
      order.add(keyColumn(c.left, input, computed));
    }
    Lowered in = withColumns(input, computed);
    List<Boolean> descending = new ArrayList<>();
    for (RexFieldCollation c : o.getWindow().orderKeys) {
      boolean desc = c.getDirection() == RelFieldCollation.Direction.DESCENDING;
      RelFieldCollation.NullDirection nulls = c.getNullDirection();
      if (nulls != (desc ? RelFieldCollation.NullDirection.FIRST
          : RelFieldCollation.NullDirection.LAST)) {
        throw unsupported("NULLS FIRST/LAST in OVER (nulls sort as the greatest values)", "nulls");
      }
      descending.add(desc);
    }
    Stream top;
    Ex rankValue;
    if (fn != SqlKind.ROW_NUMBER && (limit != 1 || order.size() != 1)) {
      RankKind kind = fn == SqlKind.RANK ? RankKind.RANK : RankKind.DENSE_RANK;
      top = in.stream().groupBy(keys.toArray(String[]::new)).topN(order, descending, limit, "_rank", kind);
      rankValue = Ex.col("_rank");
    } else if (fn == SqlKind.ROW_NUMBER) {
      top = in.stream().groupBy(keys.toArray(String[]::new)).topN(order, descending, limit, "_rank");
      rankValue = Ex.col("_rank");
    } else {
      // RANK() = 1 over one column: the rows holding the partition's best value, ties included (a
      // group top, which over an append-only input keeps the leaders only).
      PlanBuilder.Grouped g = in.stream().groupBy(keys.toArray(String[]::new));
      top = descending.get(0) ? g.maxRows(order.get(0)) : g.minRows(order.get(0));
      rankValue = Ex.lit(1L);
    }
    Lowered numbered = new Lowered(top, in.fields());
    List<Named> exprs = new ArrayList<>();
    for (int i = 0; i < p.getProjects().size(); i++) {
      Ex e = i == over ? rankValue : ex(p.getProjects().get(i), numbered);
      exprs.add(new Named(e, columnName(p.getRowType().getFieldNames().get(i), i)));
    }
    Lowered projected = identity(top.project(exprs), exprs.size());
    return rest.isEmpty() ? projected
        : new Lowered(projected.stream().filter(ex(RexUtil.composeConjunction(rex, rest), projected)), projected.fields());
  }

  /** Whether the projection numbers rows (ROW_NUMBER, RANK, DENSE_RANK OVER ...), a top-N's shape. */
  private static boolean ranks(Project p) {
    boolean[] found = {false};
    p.getProjects().forEach(e -> e.accept(new RexShuttle() {
      @Override
      public RexNode visitOver(RexOver over) {
        SqlKind k = over.getOperator().getKind();
        found[0] |= k == SqlKind.ROW_NUMBER || k == SqlKind.RANK || k == SqlKind.DENSE_RANK;
        return over;
      }
    }));
    return found[0];
  }

  /**
   * Aggregate OVER windows ({@link PlanBuilder.Grouped#over}): every {@code AGG(x) OVER (PARTITION BY
   * k ORDER BY o ROWS BETWEEN n PRECEDING AND CURRENT ROW)} of the projection (Calcite may have
   * rewritten an aggregate into several, e.g. SUM into COUNT and $SUM0) becomes a column of one
   * window over the input; the projection then reads those columns. All calls must share one window.
   */
  private Lowered overWindow(Project p) {
    List<RexOver> overs = new ArrayList<>();
    p.getProjects().forEach(e -> e.accept(new RexShuttle() {
      @Override
      public RexNode visitOver(RexOver over) {
        if (!overs.contains(over)) {
          overs.add(over);
        }
        return over;
      }
    }));
    RexWindow w = overs.get(0).getWindow();
    for (RexOver o : overs) {
      if (!o.getWindow().equals(w)) {
        throw unsupported("OVER windows that differ in PARTITION BY, ORDER BY or frame in one SELECT", "over");
      }
    }
    if (!w.isRows()) {
      throw unsupported("RANGE frames in OVER (the default with ORDER BY); write ROWS BETWEEN n PRECEDING AND CURRENT ROW", "over");
    }
    if (!w.getUpperBound().isCurrentRow()) {
      throw unsupported("an OVER frame that ends after the current row; it must end at CURRENT ROW", "over");
    }
    long preceding;
    if (w.getLowerBound().isUnbounded() && w.getLowerBound().isPreceding()) {
      preceding = -1;
    } else if (w.getLowerBound().isCurrentRow()) {
      preceding = 0;
    } else if (w.getLowerBound().isPreceding() && w.getLowerBound().getOffset() instanceof RexLiteral lit
        && lit.getValueAs(Long.class) != null) {
      preceding = lit.getValueAs(Long.class);
    } else {
      throw unsupported("an OVER frame other than ROWS BETWEEN n PRECEDING (or UNBOUNDED PRECEDING) AND CURRENT ROW", "over");
    }
    Lowered input = lower(p.getInput());
    List<Named> computed = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (RexNode k : w.partitionKeys) {
      keys.add(keyColumn(k, input, computed));
    }
    List<String> order = new ArrayList<>();
    List<Boolean> descending = new ArrayList<>();
    for (RexFieldCollation c : w.orderKeys) {
      order.add(keyColumn(c.left, input, computed));
      boolean desc = c.getDirection() == RelFieldCollation.Direction.DESCENDING;
      if (c.getNullDirection() != (desc ? RelFieldCollation.NullDirection.FIRST : RelFieldCollation.NullDirection.LAST)) {
        throw unsupported("NULLS FIRST/LAST in OVER (nulls sort as the greatest values)", "nulls");
      }
      descending.add(desc);
    }
    List<Agg> calls = new ArrayList<>();
    for (int i = 0; i < overs.size(); i++) {
      RexOver o = overs.get(i);
      String name = "_over" + i;
      String arg = o.getOperands().isEmpty() ? null : keyColumn(o.getOperands().get(0), input, computed);
      calls.add(switch (o.getOperator().getKind()) {
        case COUNT -> arg == null ? Agg.count(name) : Agg.count(arg, name);
        case SUM, SUM0 -> Agg.sum(arg, name);
        case MIN -> Agg.min(arg, name);
        case MAX -> Agg.max(arg, name);
        case AVG -> Agg.avg(arg, name);
        default -> throw unsupported(o.getOperator().getName() + "() OVER (COUNT, SUM, MIN, MAX and AVG are; ROW_NUMBER() with a"
            + " rank limit)", o.getOperator().getName());
      });
    }
    Lowered in = withColumns(input, computed);
    Stream windowed = in.stream().groupBy(keys.toArray(String[]::new)).over(order, descending, preceding, calls);
    int width = in.fields().length;
    int[] fields = Arrays.copyOf(in.fields(), width + overs.size());
    for (int i = 0; i < overs.size(); i++) {
      fields[width + i] = windowed.schema().indexOf("_over" + i);
    }
    Lowered framed = new Lowered(windowed, fields);
    RexShuttle toColumns = new RexShuttle() {
      @Override
      public RexNode visitOver(RexOver over) {
        RexNode ref = rex.makeInputRef(over.getType(), width + overs.indexOf(over));
        // $SUM0 is SUM with 0 for a frame without a value (Calcite guards it with COUNT > 0).
        return over.getOperator().getKind() == SqlKind.SUM0 ? rex.makeCall(SqlStdOperatorTable.COALESCE, ref,
            rex.makeZeroLiteral(over.getType())) : ref;
      }
    };
    List<Named> exprs = new ArrayList<>();
    for (int i = 0; i < p.getProjects().size(); i++) {
      exprs.add(new Named(ex(p.getProjects().get(i).accept(toColumns), framed), columnName(p.getRowType().getFieldNames().get(i), i)));
    }
    return identity(windowed.project(exprs), exprs.size());
  }

  /** {@code input} with the {@code computed} columns added (as is when there are none). */
  private static Lowered withColumns(Lowered input, List<Named> computed) {
    if (computed.isEmpty()) {
      return input;
    }
    List<Named> cols = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    for (int i = 0; i < input.fields().length; i++) {
      if (seen.add(input.name(i))) {
        cols.add(new Named(Ex.col(input.name(i)), input.name(i)));
      }
    }
    cols.addAll(computed);
    Stream s = input.stream().project(cols);
    int[] fields = new int[input.fields().length];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = s.schema().indexOf(input.name(i));
    }
    return new Lowered(s, fields);
  }

  /** The column of a PARTITION BY or ORDER BY key: an input column, or one added to {@code computed}. */
  private String keyColumn(RexNode k, Lowered in, List<Named> computed) {
    if (k instanceof RexInputRef ref) {
      return in.name(ref.getIndex());
    }
    String name = "_key" + computed.size();
    computed.add(new Named(ex(k, in), name));
    return name;
  }

  /** n if {@code c} is {@code $rank <= n}, {@code $rank < n + 1} or {@code $rank = 1} (either way round), else null. */
  private static Long rankLimit(RexNode c, int rank) {
    if (!(c instanceof RexCall call) || call.getOperands().size() != 2) {
      return null;
    }
    RexNode a = call.getOperands().get(0);
    RexNode b = call.getOperands().get(1);
    SqlKind kind = call.getKind();
    if (b instanceof RexInputRef && a instanceof RexLiteral) {
      RexNode t = a;
      a = b;
      b = t;
      kind = kind.reverse();
    }
    if (!(a instanceof RexInputRef ref) || ref.getIndex() != rank || !(b instanceof RexLiteral lit)) {
      return null;
    }
    BigDecimal v = lit.getValueAs(BigDecimal.class);
    if (v == null || v.scale() > 0) {
      return null;
    }
    long n = v.longValueExact();
    return switch (kind) {
      case LESS_THAN_OR_EQUAL -> n;
      case LESS_THAN -> n - 1;
      case EQUALS -> n == 1 ? 1L : null;
      default -> null;
    };
  }

  private Lowered scan(TableScan s) {
    String name = Util.last(s.getTable().getQualifiedName());
    SourceDef def = sources.get(name);
    if (def == null && viewJobs.containsKey(name)) {
      used.add(name);
      Stream st = UpstreamViews.scan(builder, name, viewJobs.get(name));
      return identity(st, UpstreamViews.visibleColumns(name, viewJobs.get(name)));
    }
    if (def == null) {
      throw SqlException.notSupported("a materialized view over '" + name + "', which is neither a source nor a view");
    }
    used.add(name);
    Map<String, String> options = def.options();
    if (def.watermarkDelayMs() > 0 && def.connector().equals("nexmark")) {
      if (!def.watermarkColumn().equals(NexmarkSourceOp.EVENT_TIME)) {
        throw unsupported("the watermark on '" + def.watermarkColumn() + "' of source '" + name + "': the nexmark source's"
            + " watermark is on " + NexmarkSourceOp.EVENT_TIME, name);
      }
      // The declared WATERMARK FOR date_time AS date_time - INTERVAL ...: the source's watermark trails by it.
      options = new TreeMap<>(options);
      options.put(NexmarkSourceOptions.WATERMARK_DELAY_MS.key(), String.valueOf(def.watermarkDelayMs()));
    }
    Stream st = builder.source(def.connector(), def.table(), options);
    int[] fields = new int[def.columns().size()];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = st.schema().indexOf(def.columns().get(i).name());
    }
    return new Lowered(st, fields);
  }

  private static Lowered identity(Stream s, int n) {
    int[] f = new int[n];
    for (int i = 0; i < n; i++) {
      f[i] = i;
    }
    return new Lowered(s, f);
  }

  /**
   * A hash aggregation. {@code agg(x) FILTER (WHERE f)} aggregates {@code CASE WHEN f THEN x END}
   * (for {@code COUNT(*)}: of 1), computed by a projection before the aggregation; the aggregates
   * skip its nulls. {@code COUNT(DISTINCT x)} counts distinct non-null values; {@code MIN}/{@code
   * MAX(DISTINCT x)} are {@code MIN}/{@code MAX(x)}.
   */
  private Lowered aggregate(Aggregate a) {
    if (a.getGroupSets().size() != 1) {
      throw unsupported("GROUPING SETS, ROLLUP and CUBE", a.getGroupType() == Aggregate.Group.ROLLUP ? "rollup" : "cube");
    }
    Lowered in = lower(a.getInput());
    List<String> keys = new ArrayList<>();
    for (int k : a.getGroupSet()) {
      keys.add(in.name(k));
    }
    List<Named> filtered = new ArrayList<>();
    List<Agg> calls = new ArrayList<>();
    List<String> names = a.getRowType().getFieldNames();
    for (int i = 0; i < a.getAggCallList().size(); i++) {
      AggregateCall c = a.getAggCallList().get(i);
      String fn = c.getAggregation().getName();
      String out = columnName(names.get(keys.size() + i), keys.size() + i);
      if (c.getArgList().size() > 1) {
        throw unsupported(fn + " of " + c.getArgList().size() + " arguments", fn);
      }
      if (c.getCollation() != null && !c.getCollation().getFieldCollations().isEmpty()) {
        throw unsupported("WITHIN GROUP (ORDER BY ...) on " + fn, "within");
      }
      String arg = c.getArgList().isEmpty() ? null : in.name(c.getArgList().get(0));
      if (c.hasFilter()) {
        String f = "_filter" + i;
        Ex then = arg == null ? Ex.lit(1L) : Ex.col(arg);
        filtered.add(new Named(Ex.fn("case", Ex.col(in.name(c.filterArg)), then), f));
        arg = f;
      }
      boolean countStar = arg == null;
      SqlKind kind = c.getAggregation().getKind();
      if (c.isDistinct() && kind != SqlKind.COUNT && kind != SqlKind.MIN && kind != SqlKind.MAX) {
        throw unsupported("DISTINCT in " + fn + " (COUNT, MIN and MAX take it)", "distinct");
      }
      calls.add(switch (kind) {
        case COUNT -> c.isDistinct() ? Agg.countDistinct(arg, out) : countStar ? Agg.count(out) : Agg.count(arg, out);
        case SUM, SUM0 -> Agg.sum(arg, out);
        case AVG -> Agg.avg(arg, out);
        case MIN -> Agg.min(arg, out);
        case MAX -> Agg.max(arg, out);
        default -> throw unsupported("aggregate function " + fn, fn);
      });
    }
    Stream input = withColumns(in, filtered).stream();
    PlanBuilder.Grouped grouped = input.groupBy(keys.toArray(String[]::new));
    if (onWindowClose) {
      for (String k : keys) {
        try {
          grouped = grouped.emitOnWindowClose(k);
          closingAggregations++;
          break;
        } catch (PlanException e) {
          // not a window column with a watermark (or the input retracts): try the next key
        }
      }
    }
    return identity(grouped.agg(calls.toArray(Agg[]::new)), keys.size() + calls.size());
  }

  private Lowered join(Join j) {
    JoinType type = switch (j.getJoinType()) {
      case INNER -> JoinType.INNER;
      case LEFT -> JoinType.LEFT_OUTER;
      case RIGHT -> JoinType.RIGHT_OUTER;
      case FULL -> JoinType.FULL_OUTER;
      default -> throw unsupported(j.getJoinType().name() + " join (inner, left, right and full equi-joins are; EXISTS and IN"
          + " subqueries are not)", j.getJoinType() == JoinRelType.ANTI ? "not" : "in");
    };
    String kind = j.getJoinType().name().toLowerCase(Locale.ROOT);
    JoinInfo info = j.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      throw unsupported("a join without an equality between its sides (cross or theta join)", "join");
    }
    if (type != JoinType.INNER && !info.isEqui()) {
      throw unsupported(j.getJoinType().name() + " join whose ON has more than equalities between the sides (filter a side"
          + " in a subquery instead)", kind);
    }
    // A filter on a side keeps its columns, so the join's key indices hold for the filter's input.
    Filter leftFilter = j.getLeft() instanceof Filter f ? f : null;
    Filter rightFilter = j.getRight() instanceof Filter f ? f : null;
    Lowered left = lower(leftFilter != null ? leftFilter.getInput() : j.getLeft());
    Lowered right = lower(rightFilter != null ? rightFilter.getInput() : j.getRight());
    List<String> lk = new ArrayList<>();
    List<String> rk = new ArrayList<>();
    for (int i = 0; i < info.leftKeys.size(); i++) {
      lk.add(left.name(info.leftKeys.get(i)));
      rk.add(right.name(info.rightKeys.get(i)));
    }
    RexNode deferred = null;
    if (leftFilter != null && type == JoinType.INNER && deferrable(left, lk, right)) {
      deferred = leftFilter.getCondition();
    } else if (leftFilter != null) {
      left = new Lowered(left.stream().filter(ex(leftFilter.getCondition(), left)), left.fields());
    }
    if (rightFilter != null && type == JoinType.INNER && deferred == null && deferrable(right, rk, left)) {
      deferred = RexUtil.shift(rightFilter.getCondition(), j.getLeft().getRowType().getFieldCount());
    } else if (rightFilter != null) {
      right = new Lowered(right.stream().filter(ex(rightFilter.getCondition(), right)), right.fields());
    }
    RexNode rest = info.getRemaining(rex);
    Stream joined = left.stream().join(right.stream(), lk, rk, List.of(), type, bounds(rest, left, right));
    int leftWidth = left.stream().schema().size();
    int[] fields = new int[left.fields().length + right.fields().length];
    System.arraycopy(left.fields(), 0, fields, 0, left.fields().length);
    for (int i = 0; i < right.fields().length; i++) {
      fields[left.fields().length + i] = leftWidth + right.fields()[i];
    }
    Lowered out = new Lowered(joined, fields);
    RexNode above = deferred == null ? rest : RexUtil.composeConjunction(rex, List.of(rest, deferred));
    return above.isAlwaysTrue() ? out : new Lowered(joined.filter(ex(above, out)), fields);
  }

  /**
   * Whether an inner join applies the filter of {@code side} above itself rather than below: when
   * the side holds one row per join key, ever, and the other side is append-only. Below, the other
   * side's rows whose key the filter rejects never find a match and stay in the join's state for
   * good (q20: four of five bids); above, each finds its one row and is settled (HashJoinOp's settled
   * rows: not stored), the side costs one row per key, and the compiler moves the condition into the
   * join (JoinFilterFusion), which then builds no output row for a match the filter rejects.
   */
  private static boolean deferrable(Lowered side, List<String> keys, Lowered other) {
    return side.stream().appendOnly() && side.stream().uniqueOn(keys) && other.stream().appendOnly();
  }

  /**
   * The time bounds of a join's other conditions: each {@code x >= y} (or {@code >}, or {@code y <=
   * x}) between a column x of one side and y of the other lets rows of x's side leave state once
   * y's watermark passes x ({@link PlanBuilder.Bound}); e.g. {@code b.t BETWEEN a.start AND a.end}.
   */
  private static List<PlanBuilder.Bound> bounds(RexNode rest, Lowered left, Lowered right) {
    List<PlanBuilder.Bound> out = new ArrayList<>();
    int n = left.fields().length;
    for (RexNode c : RelOptUtil.conjunctions(rest)) {
      if (!(c instanceof RexCall call) || call.getOperands().size() != 2
          || !(call.getOperands().get(0) instanceof RexInputRef a) || !(call.getOperands().get(1) instanceof RexInputRef b)) {
        continue;
      }
      RexInputRef greater;
      RexInputRef lesser;
      switch (call.getKind()) {
        case GREATER_THAN, GREATER_THAN_OR_EQUAL -> {
          greater = a;
          lesser = b;
        }
        case LESS_THAN, LESS_THAN_OR_EQUAL -> {
          greater = b;
          lesser = a;
        }
        default -> {
          continue;
        }
      }
      boolean greaterLeft = greater.getIndex() < n;
      if (greaterLeft == (lesser.getIndex() < n)) {
        continue; // both on one side
      }
      String g = greaterLeft ? left.name(greater.getIndex()) : right.name(greater.getIndex() - n);
      String l = greaterLeft ? right.name(lesser.getIndex() - n) : left.name(lesser.getIndex());
      out.add(new PlanBuilder.Bound(greaterLeft, g, l));
    }
    return out;
  }

  private Lowered window(TableFunctionScan t) {
    if (!(t.getCall() instanceof RexCall call) || t.getInputs().size() != 1) {
      throw unsupported("table function " + t.getCall(), "table");
    }
    String fn = call.getOperator().getName().toUpperCase(Locale.ROOT);
    Lowered in = lower(t.getInputs().get(0));
    Integer timeField = null;
    List<String> partitionBy = new ArrayList<>();
    List<Long> intervals = new ArrayList<>();
    for (RexNode o : call.getOperands()) {
      if (o instanceof RexCall d && d.getKind() == SqlKind.DESCRIPTOR) {
        if (timeField == null) {
          timeField = ((RexInputRef) d.getOperands().get(0)).getIndex();
        } else {
          for (RexNode k : d.getOperands()) {
            partitionBy.add(in.name(((RexInputRef) k).getIndex()));
          }
        }
      } else if (o instanceof RexLiteral l && SqlTypeName.INTERVAL_TYPES.contains(l.getTypeName())) {
        intervals.add(l.getValueAs(BigDecimal.class).longValueExact());
      } else if (!(o instanceof RexInputRef)) {
        throw unsupported(fn + " argument " + o + " (expected DESCRIPTOR(column) and INTERVAL literals)", fn);
      }
    }
    if (timeField == null) {
      throw unsupported(fn + " without DESCRIPTOR(time column)", fn);
    }
    String time = in.name(timeField);
    Stream w = switch (fn) {
      case "TUMBLE" -> {
        if (intervals.size() != 1) {
          throw unsupported("TUMBLE with an offset", fn);
        }
        yield in.stream().tumble(time, Duration.ofMillis(intervals.get(0)));
      }
      case "HOP" -> {
        if (intervals.size() != 2) {
          throw unsupported("HOP with an offset", fn);
        }
        yield in.stream().hop(time, Duration.ofMillis(intervals.get(1)), Duration.ofMillis(intervals.get(0)));
      }
      case "SESSION" -> {
        if (intervals.size() != 1) {
          throw unsupported("SESSION without exactly one gap INTERVAL", fn);
        }
        yield in.stream().session(time, partitionBy, Duration.ofMillis(intervals.get(0)));
      }
      default -> throw unsupported("window table function " + fn + " (TUMBLE, HOP and SESSION are)", fn);
    };
    int width = in.stream().schema().size();
    int[] fields = java.util.Arrays.copyOf(in.fields(), in.fields().length + 2);
    fields[in.fields().length] = width;
    fields[in.fields().length + 1] = width + 1;
    return new Lowered(w, fields);
  }

  private Ex ex(RexNode n, Lowered in) {
    if (n instanceof RexInputRef r) {
      return Ex.col(in.name(r.getIndex()));
    }
    if (n instanceof RexLiteral l) {
      return literal(l);
    }
    if (!(n instanceof RexCall c)) {
      throw SqlException.notSupported("expression " + n);
    }
    if (c.getKind() == SqlKind.SEARCH) {
      return ex(RexUtil.expandSearch(rex, null, c), in);
    }
    List<RexNode> ops = c.getOperands();
    if (c.getOperator() == SqlStdOperatorTable.DATETIME_PLUS && ops.get(1) instanceof RexLiteral iv
        && SqlTypeName.INTERVAL_TYPES.contains(iv.getTypeName())) {
      // timestamp + INTERVAL: milliseconds added to the epoch milliseconds
      long ms = iv.getValueAs(BigDecimal.class).longValueExact();
      return Ex.cast(Ex.add(Ex.cast(ex(ops.get(0), in), DataType.BIGINT), Ex.lit(ms)), DataType.TIMESTAMP);
    }
    switch (c.getKind()) {
      case EXTRACT -> {
        return typed(Ex.fn("extract", Ex.lit(symbol(ops.get(0), "EXTRACT")), ex(ops.get(1), in)), c, in);
      }
      case FLOOR -> {
        if (ops.size() == 2) {
          return Ex.fn("date_trunc", Ex.lit(symbol(ops.get(1), "FLOOR")), ex(ops.get(0), in));
        }
      }
      case TRIM -> {
        return Ex.fn("trim_" + symbol(ops.get(0), "TRIM"), ex(ops.get(2), in), ex(ops.get(1), in));
      }
      case OTHER_FUNCTION, LIKE, POSITION -> {
        Ex f = function(c, in);
        if (f != null) {
          return typed(f, c, in);
        }
      }
      default -> { }
    }
    List<Ex> args = new ArrayList<>();
    for (RexNode o : c.getOperands()) {
      args.add(ex(o, in));
    }
    return switch (c.getKind()) {
      case EQUALS -> Ex.eq(args.get(0), args.get(1));
      case NOT_EQUALS -> Ex.ne(args.get(0), args.get(1));
      case LESS_THAN -> Ex.lt(args.get(0), args.get(1));
      case LESS_THAN_OR_EQUAL -> Ex.le(args.get(0), args.get(1));
      case GREATER_THAN -> Ex.gt(args.get(0), args.get(1));
      case GREATER_THAN_OR_EQUAL -> Ex.ge(args.get(0), args.get(1));
      case AND -> fold("and", args);
      case OR -> fold("or", args);
      case NOT -> Ex.not(args.get(0));
      case PLUS -> Ex.add(args.get(0), args.get(1));
      case MINUS -> Ex.sub(args.get(0), args.get(1));
      case TIMES -> Ex.mul(args.get(0), args.get(1));
      case DIVIDE -> Ex.div(args.get(0), args.get(1));
      case MOD -> Ex.mod(args.get(0), args.get(1));
      case MINUS_PREFIX -> Ex.fn("neg", args.get(0));
      case IS_NULL -> Ex.isNull(args.get(0));
      case IS_NOT_NULL -> Ex.not(Ex.isNull(args.get(0)));
      case IS_TRUE -> Ex.fn("coalesce", args.get(0), Ex.lit(false));
      case IS_NOT_TRUE -> Ex.not(Ex.fn("coalesce", args.get(0), Ex.lit(false)));
      case IS_FALSE -> Ex.not(Ex.fn("coalesce", args.get(0), Ex.lit(true)));
      case IS_NOT_FALSE -> Ex.fn("coalesce", args.get(0), Ex.lit(true));
      case CAST -> {
        DataType to = Schemas.tideType(c.getType().getSqlTypeName());
        if (to == null) {
          throw unsupported("CAST to " + c.getType().getSqlTypeName(), "cast");
        }
        DataType from = Schemas.tideType(c.getOperands().get(0).getType().getSqlTypeName());
        yield to == from ? args.get(0) : Ex.cast(args.get(0), to);
      }
      case CASE -> Ex.fn("case", args.toArray(Ex[]::new));
      case COALESCE -> Ex.fn("coalesce", args.toArray(Ex[]::new));
      default -> switch (c.getOperator().getName().toUpperCase(Locale.ROOT)) {
        case "LOWER", "UPPER", "CHAR_LENGTH", "CHARACTER_LENGTH" ->
            Ex.fn(c.getOperator().getName().toLowerCase(Locale.ROOT).replace("character_length", "char_length"), args.get(0));
        case "||", "CONCAT" -> Ex.fn("concat", args.toArray(Ex[]::new));
        default -> throw unsupported("function " + c.getOperator().getName() + " in a materialized view (see docs/sql.md for"
            + " the functions views evaluate)", c.getOperator().getName());
      };
    };
  }

  /** The string and date/time functions of {@link dev.tide.stream.expr.ScalarFunctions}; null if {@code c} is none of them. */
  private Ex function(RexCall c, Lowered in) {
    String name = c.getOperator().getName().toUpperCase(Locale.ROOT);
    if (c.getKind() == SqlKind.LIKE) {
      if (!name.equals("LIKE") && !name.equals("NOT LIKE")) {
        throw unsupported(name + " (LIKE is)", name.split(" ")[name.split(" ").length - 1]);
      }
      Ex like = Ex.fn("like", args(c, in));
      return name.equals("LIKE") ? like : Ex.not(like);
    }
    if (c.getKind() == SqlKind.POSITION && c.getOperands().size() > 2) {
      throw unsupported("POSITION(... FROM start)", "position");
    }
    return switch (name) {
      case "SUBSTRING", "SUBSTR" -> Ex.fn("substring", args(c, in));
      case "LEFT" -> Ex.fn("substring", ex(c.getOperands().get(0), in), Ex.lit(1L), ex(c.getOperands().get(1), in));
      case "SPLIT_PART" -> Ex.fn("split_part", args(c, in));
      case "REGEXP_REPLACE" -> Ex.fn("regexp_replace", args(c, in));
      case "REGEXP_EXTRACT" -> Ex.fn("regexp_extract", args(c, in));
      case "REGEXP_LIKE" -> {
        if (c.getOperands().size() > 2) {
          throw unsupported("REGEXP_LIKE with flags", "regexp_like");
        }
        yield Ex.fn("regexp_like", args(c, in));
      }
      case "REPLACE" -> Ex.fn("replace", args(c, in));
      case "POSITION", "STRPOS" -> Ex.fn("position", args(c, in));
      case "DATE_TRUNC" -> Ex.fn("date_trunc", args(c, in));
      case "TO_CHAR" -> Ex.fn("to_char", args(c, in));
      default -> null;
    };
  }

  private Ex[] args(RexCall c, Lowered in) {
    Ex[] out = new Ex[c.getOperands().size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ex(c.getOperands().get(i), in);
    }
    return out;
  }

  /** The lower-case name of a flag operand (a time unit of EXTRACT or FLOOR, the side of TRIM). */
  private String symbol(RexNode n, String fn) {
    if (n instanceof RexLiteral l && l.getValue() instanceof Enum<?> e) {
      return e.name().toLowerCase(Locale.ROOT);
    }
    throw unsupported(fn + " argument " + n, fn);
  }

  /** {@code e} cast to Calcite's type of {@code c} when Tide would type it otherwise (e.g. INT for BIGINT). */
  private Ex typed(Ex e, RexCall c, Lowered in) {
    DataType want = Schemas.tideType(c.getType().getSqlTypeName());
    if (want == null) {
      return e;
    }
    DataType got = ExprResolver.typeOf(ExprResolver.resolve(e, in.stream().schema(),
        c.getOperator().getName()));
    return got == want ? e : Ex.cast(e, want);
  }

  private static Ex fold(String op, List<Ex> args) {
    Ex e = args.get(0);
    for (int i = 1; i < args.size(); i++) {
      e = Ex.fn(op, e, args.get(i));
    }
    return e;
  }

  private static Ex literal(RexLiteral l) {
    if (l.isNull()) {
      DataType t = Schemas.tideType(l.getType().getSqlTypeName());
      if (t == null) {
        throw SqlException.notSupported("a NULL literal of type " + l.getType());
      }
      return new Ex.Lit(null, t);
    }
    return switch (l.getTypeName()) {
      case BOOLEAN -> Ex.lit(l.getValueAs(Boolean.class));
      case TINYINT, SMALLINT, INTEGER, BIGINT -> Ex.lit(l.getValueAs(Long.class));
      case DECIMAL -> {
        BigDecimal d = l.getValueAs(BigDecimal.class);
        yield d.scale() <= 0 ? Ex.lit(d.longValueExact()) : Ex.lit(d.doubleValue());
      }
      case DOUBLE, FLOAT, REAL -> Ex.lit(l.getValueAs(Double.class));
      case CHAR, VARCHAR -> Ex.lit(l.getValueAs(String.class));
      case TIMESTAMP -> new Ex.Lit(l.getValueAs(Long.class), DataType.TIMESTAMP);
      default -> throw SqlException.notSupported("literal " + l + " of type " + l.getTypeName());
    };
  }
}
