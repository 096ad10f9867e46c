package dev.tide.common.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.Column;
import dev.tide.common.types.DataType;
import dev.tide.common.types.TypedValues;
import java.util.Arrays;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/** The state-value row codec: exact round trip (nulls, -0.0, NaN, any string) and refusal of malformed bytes. */
class ValueCodecPropertyTest {

  @Provide
  Arbitrary<Tuple2<DataType[], Object[]>> rows() {
    return TypedValues.typeLists(8).flatMap(types -> TypedValues.row(types).map(r -> Tuple.of(types, r)));
  }

  @Property(tries = 2000)
  void roundTripIsExact(@ForAll("rows") Tuple2<DataType[], Object[]> r) {
    byte[] bytes = ValueCodec.encode(r.get1(), r.get2());
    // Boxed equality: Double.equals tells -0.0 from 0.0, so the sign of zero must survive.
    assertThat(ValueCodec.decode(r.get1(), bytes)).containsExactly(r.get2());
  }

  /** Rows without strings encode into a reused buffer exactly as into their own array; a string column is refused. */
  @Property(tries = 1000)
  void fixedWidthRowsEncodeExactlyIntoABuffer(@ForAll("rows") Tuple2<DataType[], Object[]> r) {
    DataType[] types = r.get1();
    byte[] buffer = new byte[ValueCodec.maxFixedLength(types)];
    Arrays.fill(buffer, (byte) 7);
    if (Arrays.asList(types).contains(DataType.VARCHAR)) {
      assertThatThrownBy(() -> ValueCodec.encodeFixed(types, r.get2(), buffer))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is VARCHAR");
      return;
    }
    int n = ValueCodec.encodeFixed(types, r.get2(), buffer);
    assertThat(Arrays.copyOf(buffer, n)).isEqualTo(ValueCodec.encode(types, r.get2()));
  }

  @Property(tries = 1000)
  void columnsEncodeExactlyAsTheBoxedRow(@ForAll("rows") Tuple2<DataType[], Object[]> r) {
    DataType[] types = r.get1();
    Column[] columns = new Column[types.length];
    for (int i = 0; i < types.length; i++) {
      columns[i] = Column.ofObjects(types[i], null, r.get2()[i]); // the row is row 1: offsets past row 0 matter
    }
    byte[] expected = ValueCodec.encode(types, r.get2());
    assertThat(ValueCodec.encodedLength(columns, 1)).isEqualTo(expected.length);
    // Into a longer buffer with other bytes: the encoding fills exactly its length and leaves the rest.
    byte[] out = new byte[expected.length + 3];
    Arrays.fill(out, (byte) 0x5A);
    ValueCodec.encode(columns, 1, out);
    assertThat(Arrays.copyOf(out, expected.length)).isEqualTo(expected);
    assertThat(Arrays.copyOfRange(out, expected.length, out.length)).containsOnly((byte) 0x5A);
  }

  @Property(tries = 500)
  void truncatedOrExtendedBytesAreRefused(@ForAll("rows") Tuple2<DataType[], Object[]> r) {
    byte[] bytes = ValueCodec.encode(r.get1(), r.get2());
    for (int cut = 0; cut < bytes.length; cut++) {
      byte[] shorter = Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> ValueCodec.decode(r.get1(), shorter))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too short");
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> ValueCodec.decode(r.get1(), longer))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("beyond a row");
  }

  @Example
  void allNullRowIsOneTagBytePerColumn() {
    DataType[] types = DataType.values();
    byte[] bytes = ValueCodec.encode(types, new Object[types.length]);
    assertThat(bytes).hasSize(types.length).containsOnly(0);
    assertThat(ValueCodec.decode(types, bytes)).containsOnlyNulls();
  }

  @Example
  void stringsWithZeroBytesAndSurrogatePairsRoundTrip() {
    DataType[] types = {DataType.VARCHAR, DataType.VARCHAR, DataType.DOUBLE};
    Object[] row = {"a\0b", "\uD83D\uDE00 é 中", -0.0};
    assertThat(ValueCodec.decode(types, ValueCodec.encode(types, row))).containsExactly(row);
  }
}
