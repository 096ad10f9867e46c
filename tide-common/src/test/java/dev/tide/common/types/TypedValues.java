package dev.tide.common.types;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Generators of boxed values of every {@link DataType} and the reference order of those values, for
 * property tests of encodings and hashing.
 *
 * <p>Reference order (SQL order): null first; integers and timestamps numerically; DOUBLE
 * numerically with {@code -0.0 = 0.0} and NaN (any payload) equal to itself and greater than every
 * other value, +Infinity included; false before true; VARCHAR by Unicode code point (the order of
 * UTF-8 bytes, which differs from {@link String#compareTo}'s UTF-16 order above U+E000).
 */
public final class TypedValues {
  private TypedValues() {}

  /** Code points chosen to sit on UTF-8 length boundaries, around the surrogate gap, and 0x00. */
  private static final int[] INTERESTING_CODE_POINTS = {
      0x00, 0x01, 0x61, 0x62, 0x7A, 0x41, 0x7F, 0x80, 0xE9, 0xFF, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD,
      0xFFFF, 0x10000, 0x1F600, 0x10FFFF};

  public static Arbitrary<DataType> types() {
    return Arbitraries.of(DataType.class);
  }

  /** A valid Unicode code point (no lone surrogates, which UTF-8 cannot carry). */
  public static Arbitrary<Integer> codePoints() {
    return Arbitraries.oneOf(
        Arbitraries.of(Arrays.stream(INTERESTING_CODE_POINTS).boxed().toList()),
        Arbitraries.integers().between(0, 0x7F),
        Arbitraries.integers().between(0, 0x10FFFF).filter(c -> c < 0xD800 || c > 0xDFFF));
  }

  /** Short strings over a small alphabet (so prefixes are shared) and over all of Unicode. */
  public static Arbitrary<String> strings() {
    Arbitrary<Integer> small = Arbitraries.of(0x00, (int) 'a', (int) 'b', 0xE9, 0xFFFD, 0x1F600);
    return Arbitraries.oneOf(small, codePoints()).list().ofMaxSize(8)
        .map(cps -> {
          StringBuilder sb = new StringBuilder();
          cps.forEach(sb::appendCodePoint);
          return sb.toString();
        });
  }

  public static Arbitrary<Double> doubles() {
    return Arbitraries.oneOf(
        Arbitraries.of(0.0, -0.0, 1.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_NORMAL),
        Arbitraries.doubles().between(-1e6, 1e6),
        // Every bit pattern: subnormals, NaNs with payloads, huge and tiny magnitudes.
        Arbitraries.longs().map(Double::longBitsToDouble));
  }

  public static Arbitrary<Long> longs() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(-3, 3),
        Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE),
        Arbitraries.longs());
  }

  public static Arbitrary<Integer> ints() {
    return Arbitraries.oneOf(
        Arbitraries.integers().between(-3, 3),
        Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE),
        Arbitraries.integers());
  }

  /** A non-null boxed value of the type (Integer, Long, Double, Boolean or String). */
  public static Arbitrary<Object> nonNull(DataType t) {
    return switch (t) {
      case BOOLEAN -> Arbitraries.of(true, false).map(v -> v);
      case INT -> ints().map(v -> v);
      case BIGINT, TIMESTAMP -> longs().map(v -> v);
      case DOUBLE -> doubles().map(v -> v);
      case VARCHAR -> strings().map(v -> v);
    };
  }

  /** A boxed value of the type, null about one time in eight. */
  public static Arbitrary<Object> value(DataType t) {
    return nonNull(t).injectNull(0.125);
  }

  /** A row of the given types. */
  public static Arbitrary<Object[]> row(DataType[] types) {
    List<Arbitrary<Object>> cols = Arrays.stream(types).map(TypedValues::value).toList();
    return Combinators.combine(cols).as(List::toArray);
  }

  /** Some column types, then a row of them. */
  public static Arbitrary<DataType[]> typeLists(int maxColumns) {
    return types().array(DataType[].class).ofMinSize(1).ofMaxSize(maxColumns);
  }

  /** Reference order of two values of one type; see the class comment. */
  public static int compare(DataType t, Object a, Object b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return switch (t) {
      case BOOLEAN -> Boolean.compare((Boolean) a, (Boolean) b);
      case INT, BIGINT, TIMESTAMP -> Long.compare(((Number) a).longValue(), ((Number) b).longValue());
      case DOUBLE -> compareDoubles((Double) a, (Double) b);
      case VARCHAR -> compareCodePoints((String) a, (String) b);
    };
  }

  /** SQL order of doubles: -0.0 equals 0.0; NaN equals NaN and is above +Infinity. */
  public static int compareDoubles(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  public static int compareCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    return Arrays.compare(x, y);
  }

  /** Lexicographic reference order of rows. */
  public static int compareRows(DataType[] types, Object[] a, Object[] b) {
    for (int i = 0; i < types.length; i++) {
      int c = compare(types[i], a[i], b[i]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** The value as the key encoding preserves it: -0.0 becomes 0.0 (NaNs all equal already). */
  public static Object keyCanonical(Object v) {
    if (v instanceof Double d && d == 0.0) {
      return 0.0;
    }
    return v;
  }
}
