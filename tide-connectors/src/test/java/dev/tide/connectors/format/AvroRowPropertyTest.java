package dev.tide.connectors.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/** Any row of any column types survives the sink's derived Avro schema and back, bare and in the wire format. */
class AvroRowPropertyTest {
  private static Arbitrary<Object> value(DataType t) {
    Arbitrary<Object> v = switch (t) {
      case BOOLEAN -> Arbitraries.of(true, false).map(b -> (Object) b);
      case INT -> Arbitraries.integers().map(i -> (Object) i);
      case BIGINT, TIMESTAMP -> Arbitraries.longs().map(l -> (Object) l);
      case DOUBLE -> Arbitraries.doubles().withSpecialValue(Double.NaN).withSpecialValue(-0.0).map(d -> (Object) d);
      case VARCHAR -> Arbitraries.strings().withCharRange('\u0000', '\ud7ff').ofMaxLength(30).map(s -> (Object) s);
    };
    return v.injectNull(0.2);
  }

  @Provide
  Arbitrary<Tuple2<Schema, Object[]>> rows() {
    return Arbitraries.of(DataType.values()).list().ofMinSize(1).ofMaxSize(8).flatMap(types -> {
      List<Field> fields = new ArrayList<>();
      List<Arbitrary<Object>> values = new ArrayList<>();
      for (int i = 0; i < types.size(); i++) {
        fields.add(new Field("c" + i, types.get(i)));
        values.add(value(types.get(i)));
      }
      return Combinators.combine(values).as(vs -> Tuple.of(new Schema(fields), vs.toArray()));
    });
  }

  @Property(tries = 500)
  void derivedSchemaRoundTrips(@ForAll("rows") Tuple2<Schema, Object[]> r, @ForAll boolean wire) {
    Schema s = r.get1();
    int[] all = IntStream.range(0, s.size()).toArray();
    org.apache.avro.Schema avro = AvroFormat.recordFor("t", s, all);
    assertThat(AvroFormat.columns(avro).toString()).isEqualTo(s.toString());
    byte[] bytes = new AvroFormat.Writer(avro, s, all, wire ? 7 : -1).encode(r.get2());
    Object[] out = new Object[s.size()];
    new AvroFormat.Reader(AvroFormat.parse(avro.toString()), s).decode(bytes, wire ? 5 : 0, out);
    if (wire) {
      assertThat(AvroFormat.schemaId(bytes)).isEqualTo(7);
    }
    assertThat(out).containsExactly(r.get2());
  }
}
