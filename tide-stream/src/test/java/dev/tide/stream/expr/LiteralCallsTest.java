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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The column-wise string and time functions with literal arguments ({@link LiteralCalls}) against
 * {@link ScalarFunctions} and {@link String} row by row, over random strings (multi-byte characters,
 * delimiters next to each other and at the ends, nulls) and timestamps before and after the epoch,
 * in the order a stream brings them and shuffled (the time functions keep their last bucket).
 */
class LiteralCallsTest {
  private static final Schema SCHEMA = Schema.of(new Field("s", DataType.VARCHAR), new Field("t", DataType.TIMESTAMP));
  private static final String ALPHABET = "ab/c&=_Aé€\uD83D\uDE00 .";

  @Property(tries = 300)
  void stringFunctionsEqualTheRowWiseOnes(@ForAll long seed) {
    Random rnd = new Random(seed);
    List<Object[]> rows = rows(rnd);
    String d = new String[] {"/", "c", "ab", "é", "//", "\uD83D\uDE00"}[rnd.nextInt(6)];
    long field = new long[] {1, 2, 4, 6, -1, -2, 9}[rnd.nextInt(7)];
    String to = new String[] {"", "x", "€€", "cc"}[rnd.nextInt(4)];
    String pattern = new String[] {"(&|^)c=([^&]*)", "a(b+)", "é.", "^$", "ab*c", "b|c=", "a{2}/", "[c=]a", "\\.c", "(?i)AB", "\\x2Fc", "\\p{L}/"}[rnd.nextInt(12)];
    long group = rnd.nextInt(3);
    check(rows, Ex.fn("char_length", Ex.col("s")), s -> s.codePointCount(0, s.length()), seed);
    check(rows, Ex.fn("lower", Ex.col("s")), s -> s.toLowerCase(Locale.ROOT), seed);
    check(rows, Ex.fn("upper", Ex.col("s")), s -> s.toUpperCase(Locale.ROOT), seed);
    check(rows, Ex.fn("replace", Ex.col("s"), Ex.lit(d), Ex.lit(to)), s -> s.replace(d, to), seed);
    check(rows, Ex.fn("split_part", Ex.col("s"), Ex.lit(d), Ex.lit(field)), s -> ScalarFunctions.splitPart(s, d, field), seed);
    check(rows, Ex.fn("regexp_extract", Ex.col("s"), Ex.lit(pattern), Ex.lit(group)),
        s -> ScalarFunctions.regexpExtract(s, pattern, group), seed);
    check(rows, Ex.fn("regexp_extract", Ex.col("s"), Ex.lit(pattern)), s -> ScalarFunctions.regexpExtract(s, pattern, 0), seed);
  }

  @Test
  void aQuantifiersBoundsAreNotRequiredText() {
    stringFunctionsEqualTheRowWiseOnes(-1305662); // found "2" required in a{2}/ and gave NULL for "aa/"
  }

  @Property(tries = 200)
  void timeFunctionsEqualTheRowWiseOnes(@ForAll long seed) {
    Random rnd = new Random(seed);
    List<Object[]> rows = rows(rnd);
    for (String unit : ScalarFunctions.EXTRACT_UNITS) {
      check(rows, 1, Ex.fn("extract", Ex.lit(unit), Ex.col("t")), t -> ScalarFunctions.extract(unit, (Long) t), seed);
    }
    for (String unit : ScalarFunctions.TRUNC_UNITS) {
      check(rows, 1, Ex.fn("date_trunc", Ex.lit(unit), Ex.col("t")), t -> ScalarFunctions.dateTrunc(unit, (Long) t), seed);
    }
    for (String format : List.of("YYYY-MM-DD", "HH24:MI", "HH12 AM", "YYYY-MM-DD HH24:MI:SS.MS", "Dy DD Mon", "\"day\" DDD Q")) {
      check(rows, 1, Ex.fn("to_char", Ex.col("t"), Ex.lit(format)), t -> ScalarFunctions.toChar((Long) t, format), seed);
    }
  }

  @Test
  void requiredTextIsWhatEveryMatchContains() {
    assertThat(LiteralCalls.requiredText("(&|^)channel_id=([^&]*)")).isEqualTo("channel_id=");
    assertThat(LiteralCalls.requiredText("ab*cd")).isEqualTo("cd"); // b is optional: a and cd are required apart
    assertThat(LiteralCalls.requiredText("x|channel")).isEmpty();
    assertThat(LiteralCalls.requiredText("(?i)abc")).isEmpty();
    assertThat(LiteralCalls.requiredText("[ab]c\\.de")).isEqualTo("de");
    assertThat(LiteralCalls.requiredText("a{2}bc")).isEqualTo("bc");
    assertThat(LiteralCalls.requiredText("a{2}/")).isEqualTo("/"); // the bounds of a quantifier are not text
    assertThat(LiteralCalls.requiredText("(ab){1,3}xy")).isEqualTo("xy");
    assertThat(LiteralCalls.requiredText("\\x2Fab")).isEmpty(); // matches "/ab": "2Fab" is not in it
    assertThat(LiteralCalls.requiredText("\\Qa.b\\E")).isEmpty();
    assertThat(LiteralCalls.requiredText("^$")).isEmpty();
  }

  @Test
  void formatResolutionIsItsFinestField() {
    assertThat(ScalarFunctions.formatResolutionMillis("YYYY-MM-DD")).isEqualTo(86_400_000L);
    assertThat(ScalarFunctions.formatResolutionMillis("HH24:MI")).isEqualTo(60_000L);
    assertThat(ScalarFunctions.formatResolutionMillis("HH12 PM")).isEqualTo(3_600_000L);
    assertThat(ScalarFunctions.formatResolutionMillis("SS.MS")).isEqualTo(1L);
    assertThat(ScalarFunctions.formatResolutionMillis("\"MI SS\" DD")).isEqualTo(86_400_000L); // quoted text is not a field
  }

  private static List<Object[]> rows(Random rnd) {
    List<Object[]> rows = new ArrayList<>();
    long t = rnd.nextLong() % 4_000_000_000_000L; // about 1843 to 2096
    boolean ordered = rnd.nextBoolean();
    for (int i = 0, n = 1 + rnd.nextInt(60); i < n; i++) {
      StringBuilder s = new StringBuilder();
      for (int k = rnd.nextInt(12); k > 0; k--) {
        int c = rnd.nextInt(ALPHABET.length());
        s.append(Character.isHighSurrogate(ALPHABET.charAt(c)) ? ALPHABET.substring(c, c + 2)
            : Character.isLowSurrogate(ALPHABET.charAt(c)) ? "x" : String.valueOf(ALPHABET.charAt(c)));
      }
      t = ordered ? t + rnd.nextInt(7_200_000) : rnd.nextLong() % 4_000_000_000_000L;
      rows.add(new Object[] {rnd.nextInt(8) == 0 ? null : s.toString(), rnd.nextInt(8) == 0 ? null : t});
    }
    return rows;
  }

  private static void check(List<Object[]> rows, Ex call, Function<String, Object> expected, long seed) {
    check(rows, 0, call, v -> expected.apply((String) v), seed);
  }

  private static void check(List<Object[]> rows, int column, Ex call, Function<Object, Object> expected, long seed) {
    Expr resolved = ExprResolver.resolve(call, SCHEMA, "test");
    ChunkExpr compiled = ChunkExpr.compile(resolved);
    assertThat(compiled.getClass().getEnclosingClass()).as("%s is compiled column-wise", call).isEqualTo(LiteralCalls.class);
    ChunkBuilder b = new ChunkBuilder(SCHEMA.types(), rows.size() + 3);
    for (Object[] r : rows) {
      b.appendRow(Op.INSERT.code(), r);
    }
    StreamChunk chunk = b.take();
    for (int round = 0; round < 2; round++) { // twice: the kept bucket must not leak into the next chunk
      Column out = compiled.eval(chunk);
      assertThat(out.type()).isEqualTo(compiled.type());
      for (int i = 0; i < rows.size(); i++) {
        Object in = rows.get(i)[column];
        Object want = in == null ? null : expected.apply(in);
        if (want instanceof Number num && !(want instanceof Double)) {
          want = compiled.type() == DataType.INT ? (Object) num.intValue() : (Object) num.longValue();
        }
        assertThat(out.get(i)).as("seed %d, %s, row %d: %s", seed, call, i, in).isEqualTo(want);
      }
    }
  }
}
