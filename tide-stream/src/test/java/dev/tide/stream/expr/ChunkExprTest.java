package dev.tide.stream.expr;

import static dev.tide.stream.expr.Ex.and;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.div;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.in;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.lt;
import static dev.tide.stream.expr.Ex.mod;
import static dev.tide.stream.expr.Ex.not;
import static dev.tide.stream.expr.Ex.or;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.ChunkBuilder;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-picked cases of {@link ChunkExpr} semantics, one per rule the property test relies on. */
class ChunkExprTest {

  /** Evaluates {@code e} over a one-column chunk of the given values. */
  private static List<Object> eval(Ex e, DataType type, Object... values) {
    Schema s = Schema.of(new Field("x", type));
    ChunkBuilder b = new ChunkBuilder(new DataType[] {type}, values.length + 1);
    for (Object v : values) {
      b.appendRow((byte) 0, new Object[] {v});
    }
    StreamChunk chunk = b.take();
    Column c = ChunkExpr.compile(ExprResolver.resolve(e, s, "test")).eval(chunk);
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      out.add(c.get(i));
    }
    return out;
  }

  @Test
  void caseTakesTheFirstHoldingBranchAndCoalesceTheFirstNonNull() {
    Ex band = Ex.fn("case", lt(col("x"), lit(10L)), lit(1L), lt(col("x"), lit(100L)), lit(2.5));
    assertThat(eval(band, DataType.BIGINT, 5L, 50L, 500L, null)).as("no else: null; widened to double")
        .containsExactly(1.0, 2.5, null, null);
    assertThat(eval(Ex.fn("case", lt(col("x"), lit(10L)), lit(1L), lit(0L)), DataType.BIGINT, 5L, 50L, null))
        .as("a null condition does not hold").containsExactly(1L, 0L, 0L);
    assertThat(eval(Ex.fn("coalesce", col("x"), lit(-1L)), DataType.BIGINT, 3L, null)).containsExactly(3L, -1L);
    assertThat(eval(Ex.fn("coalesce", col("x"), new Ex.Lit(null, DataType.BIGINT)), DataType.BIGINT, (Object) null))
        .containsExactly((Object) null);
  }

  @Test
  void stringFunctionsPassNullsThrough() {
    assertThat(eval(Ex.fn("upper", col("x")), DataType.VARCHAR, "aBc", null)).containsExactly("ABC", null);
    assertThat(eval(Ex.fn("lower", col("x")), DataType.VARCHAR, "aBc")).containsExactly("abc");
    assertThat(eval(Ex.fn("char_length", col("x")), DataType.VARCHAR, "h\u00e9!", null)).containsExactly(3, null);
    assertThat(eval(Ex.fn("concat", col("x"), lit("!")), DataType.VARCHAR, "a", null)).containsExactly("a!", null);
  }

  @Test
  void divisionAndModuloByZeroAreNullForEveryNumericType() {
    assertThat(eval(div(col("x"), lit(0)), DataType.INT, 7, null)).containsExactly(null, null);
    assertThat(eval(mod(col("x"), lit(0L)), DataType.BIGINT, 7L)).containsExactly((Object) null);
    assertThat(eval(div(col("x"), lit(0.0)), DataType.DOUBLE, 1.0, -1.0, 0.0)).containsExactly(null, null, null);
    assertThat(eval(div(col("x"), lit(-0.0)), DataType.DOUBLE, 1.0)).containsExactly((Object) null);
    assertThat(eval(div(col("x"), lit(2)), DataType.DOUBLE, 1.0)).containsExactly(0.5);
  }

  @Test
  void integerArithmeticWrapsLikeJava() {
    assertThat(eval(div(col("x"), lit(-1L)), DataType.BIGINT, Long.MIN_VALUE)).containsExactly(Long.MIN_VALUE);
    assertThat(eval(mod(col("x"), lit(-1L)), DataType.BIGINT, Long.MIN_VALUE)).containsExactly(0L);
    assertThat(eval(Ex.add(col("x"), lit(1)), DataType.INT, Integer.MAX_VALUE)).containsExactly(Integer.MIN_VALUE);
    assertThat(eval(Ex.add(col("x"), lit(1L)), DataType.INT, Integer.MAX_VALUE)).as("widened to bigint")
        .containsExactly(Integer.MAX_VALUE + 1L);
  }

  @Test
  void negativeZeroEqualsZeroAndNaNEqualsNaN() {
    assertThat(eval(eq(col("x"), lit(0.0)), DataType.DOUBLE, -0.0, 0.0)).containsExactly(true, true);
    assertThat(eval(lt(col("x"), lit(0.0)), DataType.DOUBLE, -0.0)).containsExactly(false);
    assertThat(eval(eq(col("x"), lit(0)), DataType.DOUBLE, -0.0)).containsExactly(true);
    assertThat(eval(eq(col("x"), lit(Double.NaN)), DataType.DOUBLE, Double.NaN, 1.0)).containsExactly(true, false);
    assertThat(eval(lt(lit(Double.POSITIVE_INFINITY), col("x")), DataType.DOUBLE, Double.NaN)).containsExactly(true);
    assertThat(eval(in(col("x"), lit(0.0), lit(Double.NaN)), DataType.DOUBLE, -0.0, Double.NaN, 1.0)).containsExactly(true, true, false);
  }

  @Test
  void bigintComparesWithDoubleAsDouble() {
    assertThat(eval(lt(col("x"), lit(1.5)), DataType.BIGINT, 1L, 2L)).containsExactly(true, false);
    assertThat(eval(eq(col("x"), lit(2.0)), DataType.INT, 2)).containsExactly(true);
  }

  @Test
  void inWithAFractionalCandidateNeverMatchesAnInteger() {
    assertThat(eval(in(col("x"), lit(1.5)), DataType.BIGINT, 1L, 2L)).containsExactly(false, false);
    assertThat(eval(in(col("x"), lit(1.5), lit(2.0)), DataType.INT, 1, 2)).containsExactly(false, true);
    // Integer candidates compare exactly, even beyond 2^53 where doubles collide.
    long big = (1L << 53) + 1;
    assertThat(eval(in(col("x"), lit(1L << 53)), DataType.BIGINT, big)).containsExactly(false);
  }

  @Test
  void inWithANullCandidateIsNullUnlessAnotherMatches() {
    Ex nullBigint = new Ex.Lit(null, DataType.BIGINT);
    assertThat(eval(in(col("x"), lit(1L), nullBigint), DataType.BIGINT, 1L, 0L, null)).containsExactly(true, null, null);
    Ex nullBool = new Ex.Lit(null, DataType.BOOLEAN);
    assertThat(eval(in(col("x"), nullBool), DataType.BOOLEAN, false, true)).containsExactly(null, null);
    Ex nullString = new Ex.Lit(null, DataType.VARCHAR);
    assertThat(eval(in(col("x"), lit("a"), nullString), DataType.VARCHAR, "a", "")).containsExactly(true, null);
  }

  @Test
  void threeValuedLogic() {
    Ex isTrue = eq(col("x"), lit(true));
    assertThat(eval(and(isTrue, lit(false)), DataType.BOOLEAN, true, false, null)).containsExactly(false, false, false);
    assertThat(eval(and(isTrue, lit(true)), DataType.BOOLEAN, true, false, null)).containsExactly(true, false, null);
    assertThat(eval(or(isTrue, lit(true)), DataType.BOOLEAN, true, false, null)).containsExactly(true, true, true);
    assertThat(eval(or(isTrue, lit(false)), DataType.BOOLEAN, true, false, null)).containsExactly(true, false, null);
    assertThat(eval(not(col("x")), DataType.BOOLEAN, true, false, null)).containsExactly(false, true, null);
    assertThat(eval(Ex.isNull(col("x")), DataType.BOOLEAN, true, null)).containsExactly(false, true);
  }

  @Test
  void stringsCompareByCodePoint() {
    String astral = "\uD83D\uDE00";
    assertThat(eval(lt(lit("\uFFFD"), col("x")), DataType.VARCHAR, astral)).containsExactly(true);
    assertThat(eval(lt(col("x"), lit("a\0")), DataType.VARCHAR, "a", "a\0", "a\u0001")).containsExactly(true, false, false);
  }

  @Test
  void castsFollowJavaConversions() {
    assertThat(eval(Ex.cast(col("x"), DataType.BIGINT), DataType.DOUBLE, 2.9, -2.9, Double.NaN, 1e300, null))
        .containsExactly(2L, -2L, 0L, Long.MAX_VALUE, null);
    assertThat(eval(Ex.cast(col("x"), DataType.INT), DataType.BIGINT, 1L << 32 | 5)).containsExactly(5);
    assertThat(eval(Ex.cast(col("x"), DataType.VARCHAR), DataType.DOUBLE, 1.5, null)).containsExactly("1.5", null);
    assertThat(eval(Ex.cast(col("x"), DataType.TIMESTAMP), DataType.BIGINT, 5L)).containsExactly(5L);
  }
}
