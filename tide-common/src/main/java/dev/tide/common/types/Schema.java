package dev.tide.common.types;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** An ordered list of fields; names need not be unique (a join may repeat one), lookups take the first. */
public record Schema(List<Field> fields) {
  public Schema {
    fields = List.copyOf(fields);
  }

  public static Schema of(Field... fields) {
    return new Schema(List.of(fields));
  }

  public int size() {
    return fields.size();
  }

  public Field field(int i) {
    return fields.get(i);
  }

  public DataType type(int i) {
    return fields.get(i).type();
  }

  public DataType[] types() {
    DataType[] t = new DataType[fields.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = fields.get(i).type();
    }
    return t;
  }

  /** Index of the first field with this name, or -1. */
  public int indexOf(String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  public List<String> names() {
    return fields.stream().map(Field::name).collect(Collectors.toList());
  }

  public Schema concat(Schema other) {
    List<Field> all = new ArrayList<>(fields);
    all.addAll(other.fields);
    return new Schema(all);
  }

  @Override
  public String toString() {
    return fields.stream().map(Field::toString).collect(Collectors.joining(", ", "(", ")"));
  }
}
