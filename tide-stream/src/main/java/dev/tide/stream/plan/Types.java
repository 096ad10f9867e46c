package dev.tide.stream.plan;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.DataTypeProto;
import dev.tide.proto.plan.FieldProto;
import java.util.ArrayList;
import java.util.List;

/** Conversions between the plan protocol's types and the engine's. */
public final class Types {
  private Types() {}

  public static DataType of(DataTypeProto p) {
    return DataType.values()[p.getNumber()];
  }

  public static DataTypeProto toProto(DataType t) {
    return DataTypeProto.forNumber(t.ordinal());
  }

  public static Schema schema(List<FieldProto> fields) {
    List<Field> out = new ArrayList<>(fields.size());
    for (FieldProto f : fields) {
      out.add(new Field(f.getName(), of(f.getType())));
    }
    return new Schema(out);
  }

  public static List<FieldProto> toProto(Schema s) {
    List<FieldProto> out = new ArrayList<>(s.size());
    for (Field f : s.fields()) {
      out.add(FieldProto.newBuilder().setName(f.name()).setType(toProto(f.type())).build());
    }
    return out;
  }

  public static DataType[] types(List<FieldProto> fields) {
    DataType[] t = new DataType[fields.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = of(fields.get(i).getType());
    }
    return t;
  }

  public static int[] ints(List<Integer> list) {
    int[] a = new int[list.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = list.get(i);
    }
    return a;
  }
}
