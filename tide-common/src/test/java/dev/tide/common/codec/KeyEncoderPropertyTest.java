package dev.tide.common.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Column;
import dev.tide.common.types.DataType;
import dev.tide.common.types.TypedValues;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Memcomparable key encoding: unsigned byte order of encodings is the reference value order of
 * {@link TypedValues} (nulls first, -0.0 = 0.0, NaN above +Infinity and equal to every NaN, strings by
 * code point), and decoding gives the values back (up to that equivalence).
 */
class KeyEncoderPropertyTest {

  record Pair(DataType type, Object a, Object b) {}

  record Rows(DataType[] types, Object[] a, Object[] b) {
    @Override
    public String toString() {
      return Arrays.toString(types) + " " + Arrays.deepToString(a) + " vs " + Arrays.deepToString(b);
    }
  }

  @Provide
  Arbitrary<Pair> pairs() {
    return TypedValues.types().flatMap(t -> Combinators.combine(TypedValues.value(t), TypedValues.value(t))
        .as((a, b) -> new Pair(t, a, b)));
  }

  /** Rows that often share a prefix, so later columns decide the order. */
  @Provide
  Arbitrary<Rows> rowPairs() {
    return TypedValues.typeLists(4).flatMap(types -> Combinators.combine(TypedValues.row(types), TypedValues.row(types),
            Arbitraries.integers().between(0, types.length))
        .as((a, b, shared) -> {
          Object[] b2 = b.clone();
          System.arraycopy(a, 0, b2, 0, shared);
          return new Rows(types, a, b2);
        }));
  }

  private static byte[] encode(DataType t, Object v) {
    return new KeyEncoder().put(t, v).toByteArray();
  }

  @Property(tries = 1000)
  void singleValueOrderIsValueOrder(@ForAll("pairs") Pair p) {
    int expected = Integer.signum(TypedValues.compare(p.type(), p.a(), p.b()));
    int actual = Integer.signum(Arrays.compareUnsigned(encode(p.type(), p.a()), encode(p.type(), p.b())));
    assertThat(actual).as("%s: %s vs %s", p.type(), p.a(), p.b()).isEqualTo(expected);
  }

  @Property(tries = 1000)
  void equalValuesEncodeToEqualBytes(@ForAll("pairs") Pair p) {
    if (TypedValues.compare(p.type(), p.a(), p.b()) == 0) {
      assertThat(encode(p.type(), p.a())).isEqualTo(encode(p.type(), p.b()));
    }
  }

  @Property(tries = 1000)
  void multiColumnOrderIsLexicographic(@ForAll("rowPairs") Rows r) {
    int expected = Integer.signum(TypedValues.compareRows(r.types(), r.a(), r.b()));
    int actual = Integer.signum(Arrays.compareUnsigned(KeyEncoder.encode(r.types(), r.a()), KeyEncoder.encode(r.types(), r.b())));
    assertThat(actual).isEqualTo(expected);
  }

  @Property(tries = 2000)
  void decodeReturnsTheEncodedRow(@ForAll("rowPairs") Rows r) {
    byte[] key = KeyEncoder.encode(r.types(), r.a());
    KeyDecoder d = new KeyDecoder(key, 0);
    Object[] back = d.readAll(r.types());
    assertThat(d.position()).as("decoder consumes exactly the key").isEqualTo(key.length);
    Object[] expected = Arrays.stream(r.a()).map(TypedValues::keyCanonical).toArray();
    assertThat(back).containsExactly(expected);
  }

  @Property(tries = 1000)
  void columnPathEncodesLikeBoxedPath(@ForAll("rowPairs") Rows r) {
    KeyEncoder fromColumns = new KeyEncoder();
    for (int i = 0; i < r.types().length; i++) {
      Column c = Column.ofObjects(r.types()[i], r.b()[i], r.a()[i]);
      fromColumns.put(c, 1);
    }
    assertThat(fromColumns.toByteArray()).isEqualTo(KeyEncoder.encode(r.types(), r.a()));
  }

  @Property
  void stateKeyPrefixRoundTripsAndOrdersByTableThenVnodeThenPk(
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int table, @ForAll @IntRange(min = 0, max = 32767) int vnode,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int table2, @ForAll @IntRange(min = 0, max = 32767) int vnode2,
      @ForAll long pk, @ForAll long pk2) {
    byte[] a = new KeyEncoder().startStateKey(table, vnode).putLong(pk).toByteArray();
    byte[] b = new KeyEncoder().startStateKey(table2, vnode2).putLong(pk2).toByteArray();
    assertThat(KeyDecoder.tableId(a)).isEqualTo(table);
    assertThat(KeyDecoder.vnode(a)).isEqualTo(vnode);
    assertThat(new KeyDecoder(a, 6).read(DataType.BIGINT)).isEqualTo(pk);
    int expected = table != table2 ? Integer.compare(table, table2) : vnode != vnode2 ? Integer.compare(vnode, vnode2) : Long.compare(pk, pk2);
    assertThat(Integer.signum(Arrays.compareUnsigned(a, b))).isEqualTo(Integer.signum(expected));
  }

  @Example
  void negativeZeroAndNaNAreDocumentedEquivalences() {
    assertThat(encode(DataType.DOUBLE, -0.0)).isEqualTo(encode(DataType.DOUBLE, 0.0));
    double otherNaN = Double.longBitsToDouble(0x7ff0000000000001L);
    assertThat(encode(DataType.DOUBLE, otherNaN)).isEqualTo(encode(DataType.DOUBLE, Double.NaN));
    assertThat(Arrays.compareUnsigned(encode(DataType.DOUBLE, Double.POSITIVE_INFINITY), encode(DataType.DOUBLE, Double.NaN))).isNegative();
    assertThat(new KeyDecoder(encode(DataType.DOUBLE, -0.0), 0).read(DataType.DOUBLE)).isEqualTo(0.0);
  }

  @Example
  void zeroBytesInStringsAreEscapedAndOrderedAsPrefixes() {
    byte[] a = encode(DataType.VARCHAR, "a");
    byte[] aNul = encode(DataType.VARCHAR, "a\0");
    byte[] aNulB = encode(DataType.VARCHAR, "a\0b");
    byte[] aOne = encode(DataType.VARCHAR, "a\u0001");
    assertThat(Arrays.compareUnsigned(a, aNul)).isNegative();
    assertThat(Arrays.compareUnsigned(aNul, aNulB)).isNegative();
    assertThat(Arrays.compareUnsigned(aNulB, aOne)).isNegative();
    // A string key followed by another column stays prefix-free.
    DataType[] two = {DataType.VARCHAR, DataType.INT};
    assertThat(Arrays.compareUnsigned(KeyEncoder.encode(two, new Object[] {"a", Integer.MAX_VALUE}),
        KeyEncoder.encode(two, new Object[] {"a\0", Integer.MIN_VALUE}))).isNegative();
    assertThat(new KeyDecoder(aNulB, 0).read(DataType.VARCHAR)).isEqualTo("a\0b");
  }

  @Example
  void stringsOrderByCodePointNotUtf16() {
    // U+FFFD sorts below U+1F600 by code point, though its UTF-16 unit is above the high surrogate.
    String bmp = "\uFFFD";
    String astral = new String(Character.toChars(0x1F600));
    assertThat(bmp.compareTo(astral)).isPositive();
    assertThat(Arrays.compareUnsigned(encode(DataType.VARCHAR, bmp), encode(DataType.VARCHAR, astral))).isNegative();
  }

  @Example
  void nullsSortFirstInEveryType() {
    for (DataType t : DataType.values()) {
      Object smallest = switch (t) {
        case BOOLEAN -> false;
        case INT -> Integer.MIN_VALUE;
        case BIGINT, TIMESTAMP -> Long.MIN_VALUE;
        case DOUBLE -> Double.NEGATIVE_INFINITY;
        case VARCHAR -> "";
      };
      assertThat(Arrays.compareUnsigned(encode(t, null), encode(t, smallest))).as(t.name()).isNegative();
    }
  }

  @Example
  void reusedEncoderTruncatesToACommonPrefix() {
    KeyEncoder e = new KeyEncoder().startStateKey(7, 3);
    int prefix = e.length();
    e.putString("a long string that forces the buffer to grow beyond its first sixty-four bytes ...");
    e.truncate(prefix);
    e.putInt(5);
    assertThat(e.toByteArray()).isEqualTo(new KeyEncoder().startStateKey(7, 3).putInt(5).toByteArray());
  }
}
