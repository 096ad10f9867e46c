package dev.tide.stream.expr;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.Expr;
import dev.tide.stream.plan.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Vectorized expressions against a boxed, row-at-a-time reference evaluator, over random typed
 * expression trees and random chunks with nulls. The reference states the semantics (see
 * {@link ChunkExpr}): SQL three-valued logic, wider-type arithmetic with Java wrap-around, division and
 * modulo by zero give null, doubles compare with -0.0 = 0.0 and NaN above everything, strings by code
 * point, {@code in} as a disjunction of equalities.
 *
 * <p>Trees come from a seeded generator; a failure prints the seed, the expression and the row.
 */
class ChunkExprPropertyTest {
  private static final Schema SCHEMA = Schema.of(
      new Field("i1", DataType.INT), new Field("i2", DataType.INT),
      new Field("l1", DataType.BIGINT), new Field("l2", DataType.BIGINT),
      new Field("d1", DataType.DOUBLE), new Field("d2", DataType.DOUBLE),
      new Field("s1", DataType.VARCHAR), new Field("s2", DataType.VARCHAR),
      new Field("b1", DataType.BOOLEAN), new Field("b2", DataType.BOOLEAN),
      new Field("t1", DataType.TIMESTAMP));

  @Property(tries = 1500)
  void vectorizedEqualsReference(@ForAll long seed) {
    Random rnd = new Random(seed);
    DataType want = new DataType[] {DataType.BOOLEAN, DataType.INT, DataType.BIGINT, DataType.DOUBLE, DataType.VARCHAR}[rnd.nextInt(5)];
    Gen gen = new Gen(rnd);
    Ex ex = gen.of(want, 4);
    Expr resolved = ExprResolver.resolve(ex, SCHEMA, "test");
    List<Object[]> rows = randomRows(rnd, 1 + rnd.nextInt(40));
    // Chunk capacity above the row count: column arrays are longer than the chunk, as in production.
    ChunkBuilder b = new ChunkBuilder(SCHEMA.types(), rows.size() + 1 + rnd.nextInt(30));
    for (Object[] r : rows) {
      b.appendRow(Op.INSERT.code(), r);
    }
    StreamChunk chunk = b.take();
    ChunkExpr compiled = ChunkExpr.compile(resolved);
    Column out = compiled.eval(chunk);
    DataType type = Types.of(resolved.getType());
    assertThat(compiled.type()).isEqualTo(type);
    assertThat(out.type()).as("column type of %s", ex).isEqualTo(type == DataType.TIMESTAMP ? DataType.TIMESTAMP : type);
    assertThat(out.size()).isEqualTo(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Object expected = Reference.eval(resolved, rows.get(i));
      assertThat(out.get(i)).as("seed %d, %s, row %s", seed, ex, Arrays.toString(rows.get(i))).isEqualTo(expected);
    }
  }

  // ------------------------------------------------------------------ data

  private static final long[] LONGS = {0, 1, -1, 2, 3, -3, 7, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 53, (1L << 53) + 1};
  private static final int[] INTS = {0, 1, -1, 2, 3, -3, 7, Integer.MIN_VALUE, Integer.MAX_VALUE};
  private static final double[] DOUBLES = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, 9.007199254740992E15, 1e300};
  private static final String[] STRINGS = {"", "a", "b", "ab", "a\0", "é", "\uFFFD", "\uD83D\uDE00", "OR", "CA"};

  static Object randomValue(Random rnd, DataType t, boolean allowNull) {
    if (allowNull && rnd.nextInt(6) == 0) {
      return null;
    }
    return switch (t) {
      case INT -> rnd.nextInt(4) == 0 ? rnd.nextInt() : INTS[rnd.nextInt(INTS.length)];
      case BIGINT, TIMESTAMP -> rnd.nextInt(4) == 0 ? rnd.nextLong() : LONGS[rnd.nextInt(LONGS.length)];
      case DOUBLE -> rnd.nextInt(4) == 0 ? rnd.nextGaussian() * 100 : DOUBLES[rnd.nextInt(DOUBLES.length)];
      case VARCHAR -> STRINGS[rnd.nextInt(STRINGS.length)];
      case BOOLEAN -> rnd.nextBoolean();
    };
  }

  private static List<Object[]> randomRows(Random rnd, int n) {
    List<Object[]> rows = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      Object[] row = new Object[SCHEMA.size()];
      for (int c = 0; c < row.length; c++) {
        row[c] = randomValue(rnd, SCHEMA.type(c), true);
      }
      rows.add(row);
    }
    return rows;
  }

  // ------------------------------------------------------------------ expression trees

  /** Random well-typed expressions of a wanted type. */
  static final class Gen {
    private final Random rnd;

    Gen(Random rnd) {
      this.rnd = rnd;
    }

    private <T> T pick(List<T> list) {
      return list.get(rnd.nextInt(list.size()));
    }

    private Ex column(DataType t) {
      List<String> names = new ArrayList<>();
      for (Field f : SCHEMA.fields()) {
        if (f.type() == t) {
          names.add(f.name());
        }
      }
      return Ex.col(pick(names));
    }

    private Ex literal(DataType t) {
      return new Ex.Lit(randomValue(rnd, t, true), t);
    }

    private DataType numeric() {
      return pick(List.of(DataType.INT, DataType.BIGINT, DataType.DOUBLE));
    }

    Ex of(DataType t, int depth) {
      if (depth == 0 || rnd.nextInt(4) == 0) {
        return rnd.nextInt(3) == 0 ? literal(t) : column(t);
      }
      return switch (t) {
        case BOOLEAN -> bool(depth - 1);
        case INT, BIGINT, DOUBLE -> number(t, depth - 1);
        case VARCHAR -> rnd.nextBoolean() ? column(t) : Ex.cast(of(pick(List.of(DataType.INT, DataType.BIGINT, DataType.BOOLEAN,
            DataType.VARCHAR, DataType.TIMESTAMP)), depth), DataType.VARCHAR);
        case TIMESTAMP -> rnd.nextBoolean() ? column(t) : Ex.cast(of(DataType.BIGINT, depth), DataType.TIMESTAMP);
      };
    }

    /** An expression of exactly type t (INT, BIGINT or DOUBLE). */
    private Ex number(DataType t, int depth) {
      switch (rnd.nextInt(5)) {
        case 0, 1 -> {
          // Operands whose wider type is t.
          DataType a = t;
          DataType b = narrowerOrEqual(t);
          if (rnd.nextBoolean()) {
            DataType x = a;
            a = b;
            b = x;
          }
          String fn = t == DataType.DOUBLE ? pick(List.of("add", "sub", "mul", "div")) : pick(List.of("add", "sub", "mul", "div", "mod"));
          return Ex.fn(fn, of(a, depth), of(b, depth));
        }
        case 2 -> {
          return Ex.fn("neg", of(t, depth));
        }
        case 3 -> {
          DataType from = rnd.nextInt(4) == 0 && t != DataType.DOUBLE ? DataType.TIMESTAMP : numeric();
          if (from == DataType.TIMESTAMP) {
            return Ex.cast(of(DataType.TIMESTAMP, depth), DataType.BIGINT);
          }
          return Ex.cast(of(from, depth), t);
        }
        default -> {
          return column(t);
        }
      }
    }

    private DataType narrowerOrEqual(DataType t) {
      return switch (t) {
        case INT -> DataType.INT;
        case BIGINT -> pick(List.of(DataType.INT, DataType.BIGINT));
        default -> numeric();
      };
    }

    private Ex bool(int depth) {
      switch (rnd.nextInt(7)) {
        case 0, 1 -> {
          String fn = pick(List.of("eq", "ne", "lt", "le", "gt", "ge"));
          int kind = rnd.nextInt(4);
          if (kind == 0) {
            return Ex.fn(fn, of(DataType.VARCHAR, depth), of(DataType.VARCHAR, depth));
          }
          if (kind == 1) {
            return Ex.fn(fn, of(DataType.BOOLEAN, depth), of(DataType.BOOLEAN, depth));
          }
          return Ex.fn(fn, of(numeric(), depth), of(numeric(), depth));
        }
        case 2 -> {
          return Ex.fn(rnd.nextBoolean() ? "and" : "or", of(DataType.BOOLEAN, depth), of(DataType.BOOLEAN, depth));
        }
        case 3 -> {
          return Ex.not(of(DataType.BOOLEAN, depth));
        }
        case 4 -> {
          return Ex.isNull(of(pick(List.of(DataType.values())), depth));
        }
        case 5 -> {
          DataType x = pick(List.of(DataType.INT, DataType.BIGINT, DataType.DOUBLE, DataType.VARCHAR, DataType.BOOLEAN));
          List<Ex> args = new ArrayList<>();
          args.add(of(x, depth));
          int k = 1 + rnd.nextInt(4);
          for (int i = 0; i < k; i++) {
            DataType ct = x.isNumeric() ? numeric() : x;
            args.add(literal(ct));
          }
          return new Ex.Fn("in", args);
        }
        default -> {
          return column(DataType.BOOLEAN);
        }
      }
    }
  }

  // ------------------------------------------------------------------ reference

  /** Row-at-a-time evaluation of a resolved expression over boxed values. */
  static final class Reference {
    static Object eval(Expr e, Object[] row) {
      DataType t = Types.of(e.getType());
      switch (e.getKindCase()) {
        case INPUT_REF:
          return row[e.getInputRef()];
        case LITERAL:
          return ExprResolver.value(e.getLiteral());
        default:
          break;
      }
      String fn = e.getCall().getFunction();
      List<Expr> args = e.getCall().getArgsList();
      switch (fn) {
        case "and", "or" -> {
          Boolean a = (Boolean) eval(args.get(0), row);
          Boolean b = (Boolean) eval(args.get(1), row);
          boolean and = fn.equals("and");
          Boolean dominant = !and;
          if (dominant.equals(a) || dominant.equals(b)) {
            return dominant;
          }
          return a == null || b == null ? null : !dominant;
        }
        case "not" -> {
          Boolean a = (Boolean) eval(args.get(0), row);
          return a == null ? null : !a;
        }
        case "is_null" -> {
          return eval(args.get(0), row) == null;
        }
        case "in" -> {
          Object x = eval(args.get(0), row);
          if (x == null) {
            return null;
          }
          boolean sawNull = false;
          for (int i = 1; i < args.size(); i++) {
            Object c = eval(args.get(i), row);
            if (c == null) {
              sawNull = true;
            } else if (compare(x, c) == 0) {
              return true;
            }
          }
          return sawNull ? null : false;
        }
        case "cast" -> {
          return cast(eval(args.get(0), row), t);
        }
        case "neg" -> {
          Object a = eval(args.get(0), row);
          return arith("sub", t == DataType.DOUBLE ? (Object) 0.0 : (Object) 0L, a, t);
        }
        default -> { }
      }
      Object a = eval(args.get(0), row);
      Object b = eval(args.get(1), row);
      if (List.of("eq", "ne", "lt", "le", "gt", "ge").contains(fn)) {
        if (a == null || b == null) {
          return null;
        }
        int c = compare(a, b);
        return switch (fn) {
          case "eq" -> c == 0;
          case "ne" -> c != 0;
          case "lt" -> c < 0;
          case "le" -> c <= 0;
          case "gt" -> c > 0;
          default -> c >= 0;
        };
      }
      return arith(fn, a, b, t);
    }

    private static Object arith(String fn, Object a, Object b, DataType t) {
      if (a == null || b == null) {
        return null;
      }
      if (t == DataType.DOUBLE) {
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        return switch (fn) {
          case "add" -> x + y;
          case "sub" -> x - y;
          case "mul" -> x * y;
          default -> y == 0.0 ? null : x / y;
        };
      }
      long x = ((Number) a).longValue();
      long y = ((Number) b).longValue();
      Long r = switch (fn) {
        case "add" -> x + y;
        case "sub" -> x - y;
        case "mul" -> x * y;
        case "div" -> y == 0 ? null : x / y;
        default -> y == 0 ? null : x % y;
      };
      if (r == null) {
        return null;
      }
      return t == DataType.INT ? (Object) (int) (long) r : (Object) r;
    }

    private static Object cast(Object v, DataType to) {
      if (v == null) {
        return null;
      }
      return switch (to) {
        case DOUBLE -> ((Number) v).doubleValue();
        case BIGINT, TIMESTAMP -> v instanceof Double d ? (long) (double) d : ((Number) v).longValue();
        case INT -> v instanceof Double d ? (int) (double) d : (int) ((Number) v).longValue();
        case VARCHAR -> String.valueOf(v);
        case BOOLEAN -> v;
      };
    }

    /** SQL comparison of two non-null values of comparable types. */
    static int compare(Object a, Object b) {
      if (a instanceof String x) {
        return Arrays.compare(x.codePoints().toArray(), ((String) b).codePoints().toArray());
      }
      if (a instanceof Boolean x) {
        return Boolean.compare(x, (Boolean) b);
      }
      if (a instanceof Double || b instanceof Double) {
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        return x == y ? 0 : Double.compare(x, y);
      }
      return Long.compare(((Number) a).longValue(), ((Number) b).longValue());
    }

    static boolean equal(Object a, Object b) {
      return Objects.equals(a, b);
    }
  }
}
