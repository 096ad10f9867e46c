package dev.tide.stream.expr;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.ColumnBuilder;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.plan.Types;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A compiled, vectorized scalar expression: evaluates over all rows of a chunk at once (visibility is
 * ignored; callers mask). SQL null semantics: null in, null out, three-valued logic for and/or/in.
 *
 * <p>Arithmetic is evaluated in the wider operand type (INT &lt; BIGINT &lt; DOUBLE); integers wrap
 * on overflow like Java's; division and modulo by zero give null, for DOUBLE too. Comparisons across
 * INT, BIGINT and DOUBLE compare as DOUBLE when either side is DOUBLE, with {@code -0.0 = 0.0} and NaN
 * equal to NaN and above every other number (the order of the key encoding); strings compare by code
 * point. {@code x in (...)} is {@code x = c1 or x = c2 ...}: null when no candidate matches and one is
 * null. Casts follow Java's conversions (DOUBLE to integer truncates toward zero and saturates).
 */
public abstract class ChunkExpr {
  protected final DataType type;

  protected ChunkExpr(DataType type) {
    this.type = type;
  }

  public DataType type() {
    return type;
  }

  public abstract Column eval(StreamChunk chunk);

  public static ChunkExpr compile(Expr e) {
    return compile(e, SharedExprs.none());
  }

  /** Compiles {@code e}, its calls that {@code shared} holds compiled once and evaluated once per input. */
  public static ChunkExpr compile(Expr e, SharedExprs shared) {
    if (shared.isShared(e)) {
      return shared.shared(e, x -> compileUnshared(x, shared));
    }
    return compileUnshared(e, shared);
  }

  private static ChunkExpr compileUnshared(Expr e, SharedExprs shared) {
    DataType t = Types.of(e.getType());
    switch (e.getKindCase()) {
      case INPUT_REF: {
        int idx = e.getInputRef();
        return new ChunkExpr(t) {
          @Override
          public Column eval(StreamChunk c) {
            return c.column(idx);
          }
        };
      }
      case LITERAL:
        return new Literal(ExprResolver.value(e.getLiteral()), t);
      case CALL:
        return compileCall(e.getCall().getFunction(), e.getCall().getArgsList(), t, shared);
      default:
        throw new IllegalArgumentException("expression without kind: " + e);
    }
  }

  private static ChunkExpr compileCall(String fn, List<Expr> argExprs, DataType t, SharedExprs shared) {
    ChunkExpr[] args = new ChunkExpr[argExprs.size()];
    for (int i = 0; i < args.length; i++) {
      args[i] = compile(argExprs.get(i), shared);
    }
    ChunkExpr literalCall = LiteralCalls.compile(fn, argExprs, args, t);
    if (literalCall != null) {
      return literalCall;
    }
    return switch (fn) {
      case "add", "sub", "mul", "div", "mod" -> new Arith(fn, args[0], args[1], t);
      case "eq", "ne", "lt", "le", "gt", "ge" -> new Compare(fn, args[0], args[1]);
      case "and", "or" -> new Logic(fn.equals("and"), args[0], args[1]);
      case "not" -> new ChunkExpr(DataType.BOOLEAN) {
        @Override
        public Column eval(StreamChunk c) {
          BoolColumn a = (BoolColumn) args[0].eval(c);
          boolean[] out = new boolean[c.size()];
          for (int i = 0; i < out.length; i++) {
            out[i] = !a.getBool(i);
          }
          return new BoolColumn(out, out.length, nullsOf(a, out.length));
        }
      };
      case "is_null" -> new ChunkExpr(DataType.BOOLEAN) {
        @Override
        public Column eval(StreamChunk c) {
          Column a = args[0].eval(c);
          boolean[] out = new boolean[c.size()];
          for (int i = 0; i < out.length; i++) {
            out[i] = a.isNull(i);
          }
          return new BoolColumn(out, out.length, null);
        }
      };
      case "neg" -> new Arith("sub", zero(args[0].type()), args[0], t);
      case "in" -> new In(args[0], Arrays.copyOfRange(argExprs.toArray(new Expr[0]), 1, argExprs.size()));
      case "cast" -> new Cast(args[0], t);
      case "case", "coalesce", "lower", "upper", "char_length", "concat", "substring", "split_part", "regexp_replace",
          "regexp_extract", "regexp_like", "like", "replace", "position", "trim_both", "trim_leading", "trim_trailing", "extract",
          "date_trunc", "to_char" -> new RowWise(fn, args, t);
      default -> throw new IllegalArgumentException("unknown function " + fn);
    };
  }

  /** A constant, as a column of the chunk's size (chunks of one size share it: columns are immutable). */
  private static final class Literal extends ChunkExpr {
    final Object value;
    private Column last;

    Literal(Object value, DataType t) {
      super(t);
      this.value = value;
    }

    /** Whether this is a non-null number (INT, BIGINT, TIMESTAMP or DOUBLE). */
    boolean isNumber() {
      return value instanceof Number;
    }

    /** Whether this is a DOUBLE: compared with, an integer column compares as DOUBLE. */
    boolean isDouble() {
      return value instanceof Number && type == DataType.DOUBLE;
    }

    @Override
    public Column eval(StreamChunk c) {
      if (last == null || last.size() != c.size()) {
        ColumnBuilder b = ColumnBuilder.create(type, c.size());
        for (int i = 0; i < c.size(); i++) {
          b.appendObject(value);
        }
        last = b.build();
      }
      return last;
    }
  }

  private static ChunkExpr zero(DataType t) {
    return new ChunkExpr(t) {
      @Override
      public Column eval(StreamChunk c) {
        ColumnBuilder b = ColumnBuilder.create(type, c.size());
        for (int i = 0; i < c.size(); i++) {
          b.appendObject(0);
        }
        return b.build();
      }
    };
  }

  static boolean[] nullsOf(Column a, int n) {
    if (!a.hasNulls()) {
      return null;
    }
    boolean[] out = new boolean[n];
    for (int i = 0; i < n; i++) {
      out[i] = a.isNull(i);
    }
    return out;
  }

  static boolean[] mergeNulls(Column a, Column b, int n) {
    if (!a.hasNulls() && !b.hasNulls()) {
      return null;
    }
    boolean[] out = new boolean[n];
    for (int i = 0; i < n; i++) {
      out[i] = a.isNull(i) || b.isNull(i);
    }
    return out;
  }

  static long[] asLongs(Column c) {
    if (c instanceof LongColumn l) {
      return l.values();
    }
    if (c instanceof IntColumn ic) {
      long[] out = new long[c.size()];
      int[] v = ic.values();
      for (int i = 0; i < out.length; i++) {
        out[i] = v[i];
      }
      return out;
    }
    throw new IllegalStateException("not an integer column: " + c.type());
  }

  static double[] asDoubles(Column c) {
    if (c instanceof DoubleColumn d) {
      return d.values();
    }
    long[] l = asLongs(c);
    double[] out = new double[c.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = l[i];
    }
    return out;
  }

  private static final class Arith extends ChunkExpr {
    private final String fn;
    private final ChunkExpr a;
    private final ChunkExpr b;

    Arith(String fn, ChunkExpr a, ChunkExpr b, DataType t) {
      super(t);
      this.fn = fn;
      this.a = a;
      this.b = b;
    }

    @Override
    public Column eval(StreamChunk c) {
      Column x = a.eval(c);
      Column y = b.eval(c);
      int n = c.size();
      boolean[] nulls = mergeNulls(x, y, n);
      if (type == DataType.DOUBLE) {
        double[] l = asDoubles(x);
        double[] r = asDoubles(y);
        double[] out = new double[n];
        switch (fn) {
          case "add" -> { for (int i = 0; i < n; i++) out[i] = l[i] + r[i]; }
          case "sub" -> { for (int i = 0; i < n; i++) out[i] = l[i] - r[i]; }
          case "mul" -> { for (int i = 0; i < n; i++) out[i] = l[i] * r[i]; }
          default -> {
            for (int i = 0; i < n; i++) {
              if (r[i] == 0.0) {
                nulls = setNull(nulls, n, i); // division by zero yields null, as for integers
              } else {
                out[i] = l[i] / r[i];
              }
            }
          }
        }
        return new DoubleColumn(out, n, nulls);
      }
      long[] l = asLongs(x);
      long[] r = asLongs(y);
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        switch (fn) {
          case "add" -> out[i] = l[i] + r[i];
          case "sub" -> out[i] = l[i] - r[i];
          case "mul" -> out[i] = l[i] * r[i];
          default -> {
            if (r[i] == 0) {
              if (nulls == null) {
                nulls = new boolean[n];
              }
              nulls[i] = true; // division by zero yields null
            } else {
              out[i] = fn.equals("div") ? l[i] / r[i] : l[i] % r[i];
            }
          }
        }
      }
      if (type == DataType.INT) {
        int[] ints = new int[n];
        for (int i = 0; i < n; i++) {
          ints[i] = (int) out[i];
        }
        return new IntColumn(ints, n, nulls);
      }
      return new LongColumn(type, out, n, nulls);
    }
  }

  private static final class Compare extends ChunkExpr {
    private final int op;
    private final ChunkExpr a;
    private final ChunkExpr b;

    /** A numeric literal side, or null; then {@link #variable} is the other side and {@link #constantOp} the operator with the constant on the right. */
    private final Literal constant;
    private final ChunkExpr variable;
    private final int constantOp;

    Compare(String fn, ChunkExpr a, ChunkExpr b) {
      super(DataType.BOOLEAN);
      this.op = List.of("eq", "ne", "lt", "le", "gt", "ge").indexOf(fn);
      this.a = a;
      this.b = b;
      if (b instanceof Literal lit && lit.isNumber()) {
        constant = lit;
        variable = a;
        constantOp = op;
      } else if (a instanceof Literal lit && lit.isNumber()) {
        constant = lit;
        variable = b;
        constantOp = MIRRORED[op]; // c op x is x op' c
      } else {
        constant = null;
        variable = null;
        constantOp = -1;
      }
    }

    /** The operator with its sides swapped: eq, ne, lt, le, gt, ge. */
    private static final int[] MIRRORED = {0, 1, 4, 5, 2, 3};

    /** {@code x op constant} without a column of the constant (the same rules as two columns). */
    private static Column againstConstant(Column x, int op, Literal constant, int n) {
      boolean[] out = new boolean[n];
      if (x instanceof DoubleColumn || constant.isDouble()) {
        double k = ((Number) constant.value).doubleValue();
        if (x instanceof DoubleColumn d) {
          double[] v = d.values();
          for (int i = 0; i < n; i++) {
            out[i] = test(op, compareDoubles(v[i], k));
          }
        } else {
          long[] v = asLongs(x);
          for (int i = 0; i < n; i++) {
            out[i] = test(op, compareDoubles(v[i], k));
          }
        }
      } else {
        long k = ((Number) constant.value).longValue();
        long[] v = asLongs(x);
        for (int i = 0; i < n; i++) {
          out[i] = test(op, Long.compare(v[i], k));
        }
      }
      return new BoolColumn(out, n, nullsOf(x, n));
    }

    private boolean test(int cmp) {
      return test(op, cmp);
    }

    private static boolean test(int op, int cmp) {
      return switch (op) {
        case 0 -> cmp == 0;
        case 1 -> cmp != 0;
        case 2 -> cmp < 0;
        case 3 -> cmp <= 0;
        case 4 -> cmp > 0;
        default -> cmp >= 0;
      };
    }

    @Override
    public Column eval(StreamChunk c) {
      if (constant != null) {
        return againstConstant(variable.eval(c), constantOp, constant, c.size());
      }
      Column x = a.eval(c);
      Column y = b.eval(c);
      int n = c.size();
      boolean[] out = new boolean[n];
      if (x instanceof DoubleColumn || y instanceof DoubleColumn) {
        double[] l = asDoubles(x);
        double[] r = asDoubles(y);
        for (int i = 0; i < n; i++) {
          out[i] = test(compareDoubles(l[i], r[i]));
        }
      } else if (x instanceof StringColumn sx) {
        StringColumn sy = (StringColumn) y;
        for (int i = 0; i < n; i++) {
          out[i] = test(Arrays.compareUnsigned(sx.data(), sx.offset(i), sx.offset(i) + sx.length(i),
              sy.data(), sy.offset(i), sy.offset(i) + sy.length(i)));
        }
      } else if (x instanceof BoolColumn bx) {
        BoolColumn by = (BoolColumn) y;
        for (int i = 0; i < n; i++) {
          out[i] = test(Boolean.compare(bx.getBool(i), by.getBool(i)));
        }
      } else {
        long[] l = asLongs(x);
        long[] r = asLongs(y);
        for (int i = 0; i < n; i++) {
          out[i] = test(Long.compare(l[i], r[i]));
        }
      }
      return new BoolColumn(out, n, mergeNulls(x, y, n));
    }
  }

  private static final class Logic extends ChunkExpr {
    private final boolean and;
    private final ChunkExpr a;
    private final ChunkExpr b;

    Logic(boolean and, ChunkExpr a, ChunkExpr b) {
      super(DataType.BOOLEAN);
      this.and = and;
      this.a = a;
      this.b = b;
    }

    @Override
    public Column eval(StreamChunk c) {
      BoolColumn x = (BoolColumn) a.eval(c);
      BoolColumn y = (BoolColumn) b.eval(c);
      int n = c.size();
      boolean[] out = new boolean[n];
      boolean[] nulls = null;
      for (int i = 0; i < n; i++) {
        boolean xn = x.isNull(i);
        boolean yn = y.isNull(i);
        boolean xv = x.getBool(i);
        boolean yv = y.getBool(i);
        if (and) {
          if ((!xn && !xv) || (!yn && !yv)) {
            out[i] = false;
          } else if (xn || yn) {
            nulls = setNull(nulls, n, i);
          } else {
            out[i] = true;
          }
        } else {
          if ((!xn && xv) || (!yn && yv)) {
            out[i] = true;
          } else if (xn || yn) {
            nulls = setNull(nulls, n, i);
          } else {
            out[i] = false;
          }
        }
      }
      return new BoolColumn(out, n, nulls);
    }
  }

  /** SQL order of doubles: {@code -0.0 = 0.0}; NaN equals NaN and sorts above +Infinity. */
  static int compareDoubles(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  private static boolean[] setNull(boolean[] nulls, int n, int i) {
    if (nulls == null) {
      nulls = new boolean[n];
    }
    nulls[i] = true;
    return nulls;
  }

  /** {@code x in (literals)}: true if x equals a candidate, else null if a candidate is null, else false. */
  private static final class In extends ChunkExpr {
    private final ChunkExpr a;
    private final long[] longs;
    private final double[] doubleLiterals;
    private final double[] doubles;
    private final byte[][] strings;
    private final boolean[] bools;
    private final boolean hasNullCandidate;

    In(ChunkExpr a, Expr[] candidates) {
      super(DataType.BOOLEAN);
      this.a = a;
      List<Long> ls = new java.util.ArrayList<>();
      List<Double> dls = new java.util.ArrayList<>();
      List<Double> ds = new java.util.ArrayList<>();
      List<byte[]> ss = new java.util.ArrayList<>();
      List<Boolean> bs = new java.util.ArrayList<>();
      boolean anyNull = false;
      for (Expr cand : candidates) {
        Object v = ExprResolver.value(cand.getLiteral());
        if (v == null) {
          anyNull = true;
        } else if (v instanceof Double d) {
          // Compared as doubles, like eq(x, d): an integer column matches 2.0 but never 1.5.
          dls.add(d);
          ds.add(d);
        } else if (v instanceof Number num) {
          ls.add(num.longValue());
          ds.add(num.doubleValue());
        } else if (v instanceof String str) {
          ss.add(str.getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof Boolean bv) {
          bs.add(bv);
        }
      }
      this.hasNullCandidate = anyNull;
      this.longs = ls.stream().mapToLong(Long::longValue).toArray();
      this.doubleLiterals = dls.stream().mapToDouble(Double::doubleValue).toArray();
      this.doubles = ds.stream().mapToDouble(Double::doubleValue).toArray();
      this.strings = ss.toArray(new byte[0][]);
      this.bools = new boolean[bs.size()];
      for (int i = 0; i < bools.length; i++) {
        bools[i] = bs.get(i);
      }
    }

    @Override
    public Column eval(StreamChunk c) {
      Column x = a.eval(c);
      int n = c.size();
      boolean[] out = new boolean[n];
      boolean[] nulls = nullsOf(x, n);
      for (int i = 0; i < n; i++) {
        if (x.isNull(i)) {
          continue;
        }
        out[i] = matches(x, i);
        if (!out[i] && hasNullCandidate) {
          nulls = setNull(nulls, n, i);
        }
      }
      return new BoolColumn(out, n, nulls);
    }

    private boolean matches(Column x, int i) {
      if (x instanceof StringColumn s) {
        for (byte[] cand : strings) {
          if (s.bytesEqual(i, cand)) {
            return true;
          }
        }
        return false;
      }
      if (x instanceof BoolColumn b) {
        for (boolean cand : bools) {
          if (cand == b.getBool(i)) {
            return true;
          }
        }
        return false;
      }
      if (x instanceof DoubleColumn d) {
        return anyEquals(doubles, d.getDouble(i));
      }
      // Integer x: integer candidates compare exactly, DOUBLE ones as doubles (as eq would).
      long v = x instanceof LongColumn l ? l.getLong(i) : ((IntColumn) x).getInt(i);
      for (long cand : longs) {
        if (cand == v) {
          return true;
        }
      }
      return anyEquals(doubleLiterals, v);
    }

    private static boolean anyEquals(double[] candidates, double v) {
      for (double cand : candidates) {
        if (compareDoubles(cand, v) == 0) {
          return true;
        }
      }
      return false;
    }
  }

  private static final class Cast extends ChunkExpr {
    private final ChunkExpr a;

    Cast(ChunkExpr a, DataType to) {
      super(to);
      this.a = a;
    }

    @Override
    public Column eval(StreamChunk c) {
      Column x = a.eval(c);
      if (x.type() == type) {
        return x;
      }
      int n = c.size();
      boolean[] nulls = nullsOf(x, n);
      switch (type) {
        case DOUBLE:
          return new DoubleColumn(Arrays.copyOf(asDoubles(x), n), n, nulls);
        case BIGINT:
        case TIMESTAMP: {
          long[] out = new long[n];
          if (x instanceof DoubleColumn d) {
            for (int i = 0; i < n; i++) {
              out[i] = (long) d.getDouble(i);
            }
          } else {
            System.arraycopy(asLongs(x), 0, out, 0, n);
          }
          return new LongColumn(type, out, n, nulls);
        }
        case INT: {
          int[] out = new int[n];
          if (x instanceof DoubleColumn d) {
            for (int i = 0; i < n; i++) {
              out[i] = (int) d.getDouble(i);
            }
          } else {
            long[] l = asLongs(x);
            for (int i = 0; i < n; i++) {
              out[i] = (int) l[i];
            }
          }
          return new IntColumn(out, n, nulls);
        }
        default: {
          ColumnBuilder b = ColumnBuilder.create(type, n);
          for (int i = 0; i < n; i++) {
            Object v = x.get(i);
            b.appendObject(v == null ? null : String.valueOf(v));
          }
          return b.build();
        }
      }
    }
  }

  /**
   * Functions evaluated row by row over boxed values: CASE (when/then pairs, then an optional else;
   * null when no condition holds), COALESCE (the first non-null), LOWER, UPPER, CHAR_LENGTH and
   * CONCAT (null when any operand is), and the functions of {@link ScalarFunctions} (null when any
   * argument is). Numeric results are converted to the call's type.
   */
  private static final class RowWise extends ChunkExpr {
    private final String fn;
    private final ChunkExpr[] args;
    private final boolean coalesce;

    RowWise(String fn, ChunkExpr[] args, DataType type) {
      super(type);
      this.fn = fn;
      this.args = args;
      this.coalesce = fn.equals("coalesce");
    }

    @Override
    public Column eval(StreamChunk c) {
      int n = c.size();
      Column[] in = new Column[args.length];
      for (int a = 0; a < args.length; a++) {
        in[a] = args[a].eval(c);
      }
      ColumnBuilder b = ColumnBuilder.create(type, n);
      if (typedChoice(in)) {
        for (int i = 0; i < n; i++) {
          Column chosen = choose(in, i);
          if (chosen == null) {
            b.appendNull();
          } else {
            b.appendFrom(chosen, i);
          }
        }
        return b.build();
      }
      for (int i = 0; i < n; i++) {
        b.appendObject(convert(row(in, i)));
      }
      return b.build();
    }

    /** CASE and COALESCE whose every value already has the call's type pick a column per row, unboxed. */
    private boolean typedChoice(Column[] in) {
      if (!fn.equals("case") && !coalesce) {
        return false;
      }
      for (int a = 0; a < in.length; a++) {
        boolean value = coalesce || a % 2 == 1 || a == in.length - 1;
        if (value && in[a].type() != type) {
          return false;
        }
        if (!value && !(in[a] instanceof BoolColumn)) {
          return false;
        }
      }
      return true;
    }

    /** The column whose row i is the result (null: the result is null). */
    private Column choose(Column[] in, int i) {
      if (coalesce) {
        for (Column col : in) {
          if (!col.isNull(i)) {
            return col;
          }
        }
        return null;
      }
      int a = 0;
      for (; a + 1 < in.length; a += 2) {
        if (!in[a].isNull(i) && ((BoolColumn) in[a]).getBool(i)) {
          return in[a + 1];
        }
      }
      return a < in.length ? in[a] : null;
    }

    private Object row(Column[] in, int i) {
      switch (fn) {
        case "case": {
          int a = 0;
          for (; a + 1 < in.length; a += 2) {
            if (Boolean.TRUE.equals(in[a].get(i))) {
              return in[a + 1].get(i);
            }
          }
          return a < in.length ? in[a].get(i) : null;
        }
        case "coalesce": {
          for (Column col : in) {
            if (!col.isNull(i)) {
              return col.get(i);
            }
          }
          return null;
        }
        case "concat": {
          StringBuilder s = new StringBuilder();
          for (Column col : in) {
            if (col.isNull(i)) {
              return null;
            }
            s.append(col.get(i));
          }
          return s.toString();
        }
        case "lower":
        case "upper":
        case "char_length": {
          Object v = in[0].get(i);
          if (v == null) {
            return null;
          }
          String s = v.toString();
          return switch (fn) {
            case "lower" -> s.toLowerCase(java.util.Locale.ROOT);
            case "upper" -> s.toUpperCase(java.util.Locale.ROOT);
            default -> s.codePointCount(0, s.length());
          };
        }
        default: {
          Object[] v = new Object[in.length];
          for (int a = 0; a < in.length; a++) {
            v[a] = in[a].get(i);
            if (v[a] == null) {
              return null;
            }
          }
          return scalar(v);
        }
      }
    }

    /** The string and date/time functions of {@link ScalarFunctions}, over non-null arguments. */
    private Object scalar(Object[] v) {
      return switch (fn) {
        case "substring" -> ScalarFunctions.substring((String) v[0], ((Number) v[1]).longValue(),
            v.length > 2 ? ((Number) v[2]).longValue() : null);
        case "split_part" -> ScalarFunctions.splitPart((String) v[0], (String) v[1], ((Number) v[2]).longValue());
        case "regexp_replace" -> ScalarFunctions.regexpReplace((String) v[0], (String) v[1], (String) v[2],
            v.length > 3 ? (String) v[3] : null);
        case "regexp_extract" -> ScalarFunctions.regexpExtract((String) v[0], (String) v[1], v.length > 2 ? ((Number) v[2]).longValue() : 0);
        case "regexp_like" -> ScalarFunctions.regexpLike((String) v[0], (String) v[1]);
        case "like" -> ScalarFunctions.like((String) v[0], (String) v[1], v.length > 2 ? (String) v[2] : null);
        case "replace" -> ((String) v[0]).replace((String) v[1], (String) v[2]);
        case "position" -> ScalarFunctions.position((String) v[0], (String) v[1]);
        case "trim_both" -> ScalarFunctions.trim("both", (String) v[1], (String) v[0]);
        case "trim_leading" -> ScalarFunctions.trim("leading", (String) v[1], (String) v[0]);
        case "trim_trailing" -> ScalarFunctions.trim("trailing", (String) v[1], (String) v[0]);
        case "extract" -> ScalarFunctions.extract((String) v[0], (Long) v[1]);
        case "date_trunc" -> ScalarFunctions.dateTrunc((String) v[0], (Long) v[1]);
        case "to_char" -> ScalarFunctions.toChar((Long) v[0], (String) v[1]);
        default -> throw new IllegalStateException("unknown function " + fn);
      };
    }

    private Object convert(Object v) {
      if (!(v instanceof Number num)) {
        return v;
      }
      return switch (type) {
        case INT -> num.intValue();
        case BIGINT, TIMESTAMP -> num.longValue();
        case DOUBLE -> num.doubleValue();
        default -> v;
      };
    }
  }
}
