package dev.tide.common.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.types.DataType;
import dev.tide.common.types.TypedValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Column builders against a boxed list: growth past capacity, nulls, strings, reuse, gather. */
class ColumnBuilderTest {

  record Values(DataType type, List<Object> values, int capacity) {}

  @Provide
  Arbitrary<Values> values() {
    return TypedValues.types().flatMap(t -> Combinators.combine(
        TypedValues.value(t).list().ofMaxSize(300), Arbitraries.integers().between(0, 20))
        .as((vs, cap) -> new Values(t, vs, cap)));
  }

  private static Column build(Values v) {
    ColumnBuilder b = ColumnBuilder.create(v.type(), v.capacity());
    for (Object o : v.values()) {
      b.appendObject(o);
    }
    assertThat(b.size()).isEqualTo(v.values().size());
    return b.build();
  }

  @Property(tries = 500)
  void builtColumnHoldsTheAppendedValues(@ForAll("values") Values v) {
    Column c = build(v);
    assertThat(c.type()).isEqualTo(v.type());
    assertThat(c.size()).isEqualTo(v.values().size());
    assertThat(c.hasNulls()).isEqualTo(v.values().contains(null));
    for (int i = 0; i < c.size(); i++) {
      assertThat(c.get(i)).as("row %d", i).isEqualTo(v.values().get(i));
      assertThat(c.isNull(i)).isEqualTo(v.values().get(i) == null);
    }
  }

  @Property(tries = 300)
  void appendFromCopiesRowsIncludingNulls(@ForAll("values") Values v) {
    Column src = build(v);
    ColumnBuilder b = ColumnBuilder.create(v.type(), 1);
    for (int i = src.size() - 1; i >= 0; i--) {
      b.appendFrom(src, i);
    }
    Column copy = b.build();
    for (int i = 0; i < src.size(); i++) {
      assertThat(copy.get(src.size() - 1 - i)).isEqualTo(src.get(i));
    }
  }

  @Property(tries = 300)
  void reuseAfterBuildLeavesEarlierColumnsIntact(@ForAll("values") Values first, @ForAll("values") Values second) {
    if (first.type() != second.type()) {
      return;
    }
    ColumnBuilder b = ColumnBuilder.create(first.type(), first.capacity());
    first.values().forEach(b::appendObject);
    Column c1 = b.build();
    Column empty = b.build(); // right after a build that may have handed its arrays over
    second.values().forEach(b::appendObject);
    Column c2 = b.build();
    assertThat(rows(c1)).isEqualTo(first.values());
    assertThat(empty.size()).isZero();
    assertThat(rows(c2)).isEqualTo(second.values());
  }

  /** Builds of a few rows copy them out and keep the builder's arrays: later appends must not show in them. */
  @Property(tries = 200)
  void partlyFilledBuildsLeaveEarlierColumnsIntact(@ForAll("values") Values v) {
    ColumnBuilder b = ColumnBuilder.create(v.type(), 1024);
    List<Column> built = new java.util.ArrayList<>();
    List<List<Object>> expected = new java.util.ArrayList<>();
    for (int from = 0; from < v.values().size(); from += 7) {
      List<Object> part = v.values().subList(from, Math.min(from + 7, v.values().size()));
      part.forEach(b::appendObject);
      built.add(b.build());
      expected.add(part);
    }
    for (int i = 0; i < built.size(); i++) {
      assertThat(rows(built.get(i))).as("build %d", i).isEqualTo(expected.get(i));
    }
  }

  @Property(tries = 300)
  void gatherPicksRowsInOrderWithTheirNulls(@ForAll("values") Values v, @ForAll List<@IntRange(min = 0, max = 299) Integer> picks) {
    Column c = build(v);
    if (c.size() == 0) {
      return;
    }
    int[] rows = picks.stream().mapToInt(p -> p % c.size()).toArray();
    Column g = c.gather(rows, rows.length);
    assertThat(g.size()).isEqualTo(rows.length);
    boolean anyNull = false;
    for (int i = 0; i < rows.length; i++) {
      assertThat(g.get(i)).isEqualTo(c.get(rows[i]));
      anyNull |= c.isNull(rows[i]);
    }
    assertThat(g.hasNulls()).as("a gathered column without nulls needs no null mask").isEqualTo(anyNull);
  }

  @Property
  void asciiWithNumberEqualsStringConcatenation(@ForAll("asciiPrefixes") String prefix, @ForAll long number) {
    ColumnBuilder.Strings b = (ColumnBuilder.Strings) ColumnBuilder.create(DataType.VARCHAR, 1);
    b.append("before");
    b.appendAsciiWithNumber(prefix.getBytes(StandardCharsets.US_ASCII), number);
    StringColumn c = (StringColumn) b.build();
    assertThat(c.getString(1)).isEqualTo(prefix + number);
  }

  @Provide
  Arbitrary<String> asciiPrefixes() {
    return Arbitraries.strings().ascii().ofMaxLength(30);
  }

  @Example
  void asciiWithNumberAtTheLongExtremes() {
    ColumnBuilder.Strings b = (ColumnBuilder.Strings) ColumnBuilder.create(DataType.VARCHAR, 1);
    byte[] p = "n=".getBytes(StandardCharsets.US_ASCII);
    b.appendAsciiWithNumber(p, Long.MIN_VALUE);
    b.appendAsciiWithNumber(p, Long.MAX_VALUE);
    b.appendAsciiWithNumber(p, 0);
    b.appendAsciiWithNumber(p, -7);
    assertThat(rows(b.build())).containsExactly("n=-9223372036854775808", "n=9223372036854775807", "n=0", "n=-7");
  }

  @Example
  void stringBuilderGrowsItsByteBufferPastManyLongStrings() {
    ColumnBuilder b = ColumnBuilder.create(DataType.VARCHAR, 2);
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      String s = "é".repeat(i * 7) + "\0" + i;
      b.appendObject(s);
      expected.add(s);
      if (i % 5 == 0) {
        b.appendNull();
        expected.add(null);
      }
    }
    StringColumn c = (StringColumn) b.build();
    assertThat(rows(c)).isEqualTo(expected);
    assertThat(c.length(1)).as("a null string has no bytes").isZero();
    assertThat(c.bytesEqual(0, "\u00000".getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(c.bytesEqual(0, "\0".getBytes(StandardCharsets.UTF_8))).isFalse();
  }

  @Example
  void longBuilderKeepsTimestampType() {
    ColumnBuilder b = ColumnBuilder.create(DataType.TIMESTAMP, 1);
    b.appendObject(5);
    b.appendObject(7L);
    Column c = b.build();
    assertThat(c.type()).isEqualTo(DataType.TIMESTAMP);
    assertThat(rows(c)).containsExactly(5L, 7L);
  }

  @Example
  void boolColumnIsTrueOnlyForNonNullTrue() {
    BoolColumn c = (BoolColumn) Column.ofObjects(DataType.BOOLEAN, true, false, null);
    assertThat(c.isTrue(0)).isTrue();
    assertThat(c.isTrue(1)).isFalse();
    assertThat(c.isTrue(2)).isFalse();
  }

  private static List<Object> rows(Column c) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < c.size(); i++) {
      out.add(c.get(i));
    }
    return out;
  }
}
