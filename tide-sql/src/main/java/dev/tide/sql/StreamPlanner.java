package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.proto.plan.Plan;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.plan.PlanException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
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

  private record Lowered(Stream stream, int[] fields) {
    String name(int field) {
      return stream.schema().field(fields[field]).name();
    }
  }

  private StreamPlanner(String view, Map<String, SourceDef> sources, Map<String, dev.tide.proto.plan.JobDefinition> viewJobs,
      RexBuilder rex) {
    this.builder = new PlanBuilder(view).withChangelogs(); // views of other jobs may follow this one
    this.sources = sources;
    this.viewJobs = viewJobs;
    this.rex = rex;
  }

  /** The plan of a view of {@code rel} named {@code view}, and the sources it reads. */
  record Planned(Plan plan, Set<String> sources) {}

  /** @param viewJobs the job of each materialized view a query may read, by view name */
  static Planned plan(String view, RelNode rel, List<String> names, Map<String, SourceDef> sources,
      Map<String, dev.tide.proto.plan.JobDefinition> viewJobs) {
    return plan(view, rel, names, sources, viewJobs, s -> s.materialize(view));
  }

  /** The plan named {@code view} of {@code rel}, its projected output ended by {@code end} (a view, a sink). */
  static Planned plan(String view, RelNode rel, List<String> names, Map<String, SourceDef> sources,
      Map<String, dev.tide.proto.plan.JobDefinition> viewJobs, java.util.function.Consumer<Stream> end) {
    StreamPlanner p = new StreamPlanner(view, sources, viewJobs, rel.getCluster().getRexBuilder());
    try {
      Lowered l = p.lower(rel);
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

  /** Calcite's names of unnamed expressions (EXPR$1) become expr1. */
  static String columnName(String name, int i) {
    return name.startsWith("EXPR$") ? "expr" + name.substring(5) : name.startsWith("$f") ? "f" + i : name;
  }

  private Lowered lower(RelNode r) {
    if (r instanceof TableScan s) {
      return scan(s);
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
    throw SqlException.notSupported(r.getRelTypeName().replace("Logical", "") + " in a materialized view (e.g. ORDER BY, LIMIT,"
        + " UNION, VALUES, OVER windows); see docs/sql.md");
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
    Stream st = builder.source(def.connector(), def.table(), def.options());
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

  private Lowered aggregate(Aggregate a) {
    if (a.getGroupSets().size() != 1) {
      throw SqlException.notSupported("GROUPING SETS, ROLLUP and CUBE");
    }
    Lowered in = lower(a.getInput());
    List<String> keys = new ArrayList<>();
    for (int k : a.getGroupSet()) {
      keys.add(in.name(k));
    }
    List<Agg> calls = new ArrayList<>();
    List<String> names = a.getRowType().getFieldNames();
    for (int i = 0; i < a.getAggCallList().size(); i++) {
      AggregateCall c = a.getAggCallList().get(i);
      String out = columnName(names.get(keys.size() + i), keys.size() + i);
      if (c.isDistinct()) {
        throw SqlException.notSupported("DISTINCT in " + c.getAggregation().getName());
      }
      if (c.hasFilter()) {
        throw SqlException.notSupported("FILTER on " + c.getAggregation().getName());
      }
      String arg = c.getArgList().isEmpty() ? null : in.name(c.getArgList().get(0));
      calls.add(switch (c.getAggregation().getKind()) {
        case COUNT -> arg == null ? Agg.count(out) : Agg.count(arg, out);
        case SUM, SUM0 -> Agg.sum(arg, out);
        case AVG -> Agg.avg(arg, out);
        case MIN -> Agg.min(arg, out);
        case MAX -> Agg.max(arg, out);
        default -> throw SqlException.notSupported("aggregate function " + c.getAggregation().getName());
      });
    }
    return identity(in.stream().groupBy(keys.toArray(String[]::new)).agg(calls.toArray(Agg[]::new)), keys.size() + calls.size());
  }

  private Lowered join(Join j) {
    if (j.getJoinType() != JoinRelType.INNER) {
      throw SqlException.notSupported(j.getJoinType().name() + " join (only inner equi-joins are)");
    }
    Lowered left = lower(j.getLeft());
    Lowered right = lower(j.getRight());
    JoinInfo info = j.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      throw SqlException.notSupported("a join without an equality between its sides (cross or theta join)");
    }
    List<String> lk = new ArrayList<>();
    List<String> rk = new ArrayList<>();
    for (int i = 0; i < info.leftKeys.size(); i++) {
      lk.add(left.name(info.leftKeys.get(i)));
      rk.add(right.name(info.rightKeys.get(i)));
    }
    Stream joined = left.stream().join(right.stream(), lk, rk);
    int leftWidth = left.stream().schema().size();
    int[] fields = new int[left.fields().length + right.fields().length];
    System.arraycopy(left.fields(), 0, fields, 0, left.fields().length);
    for (int i = 0; i < right.fields().length; i++) {
      fields[left.fields().length + i] = leftWidth + right.fields()[i];
    }
    Lowered out = new Lowered(joined, fields);
    RexNode rest = info.getRemaining(rex);
    return rest.isAlwaysTrue() ? out : new Lowered(joined.filter(ex(rest, out)), fields);
  }

  private Lowered window(TableFunctionScan t) {
    if (!(t.getCall() instanceof RexCall call) || t.getInputs().size() != 1) {
      throw SqlException.notSupported("table function " + t.getCall());
    }
    String fn = call.getOperator().getName().toUpperCase(Locale.ROOT);
    Lowered in = lower(t.getInputs().get(0));
    Integer timeField = null;
    List<Long> intervals = new ArrayList<>();
    for (RexNode o : call.getOperands()) {
      if (o instanceof RexCall d && d.getKind() == SqlKind.DESCRIPTOR) {
        timeField = ((RexInputRef) d.getOperands().get(0)).getIndex();
      } else if (o instanceof RexLiteral l && SqlTypeName.INTERVAL_TYPES.contains(l.getTypeName())) {
        intervals.add(l.getValueAs(BigDecimal.class).longValueExact());
      } else if (!(o instanceof RexInputRef)) {
        throw SqlException.notSupported(fn + " argument " + o + " (expected DESCRIPTOR(column) and INTERVAL literals)");
      }
    }
    if (timeField == null) {
      throw SqlException.notSupported(fn + " without DESCRIPTOR(time column)");
    }
    String time = in.name(timeField);
    Stream w = switch (fn) {
      case "TUMBLE" -> {
        if (intervals.size() != 1) {
          throw SqlException.notSupported("TUMBLE with an offset");
        }
        yield in.stream().tumble(time, Duration.ofMillis(intervals.get(0)));
      }
      case "HOP" -> {
        if (intervals.size() != 2) {
          throw SqlException.notSupported("HOP with an offset");
        }
        yield in.stream().hop(time, Duration.ofMillis(intervals.get(1)), Duration.ofMillis(intervals.get(0)));
      }
      default -> throw SqlException.notSupported("window table function " + fn + " (TUMBLE and HOP are)");
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
      case CAST -> {
        DataType to = Schemas.tideType(c.getType().getSqlTypeName());
        if (to == null) {
          throw SqlException.notSupported("CAST to " + c.getType().getSqlTypeName());
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
        default -> throw SqlException.notSupported("function " + c.getOperator().getName() + " in a materialized view");
      };
    };
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
