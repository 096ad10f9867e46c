package dev.tide.common.types;

import java.util.Objects;

/** A named, typed column of a schema. */
public record Field(String name, DataType type) {
  public Field {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
  }

  @Override
  public String toString() {
    return name + " " + type.sqlName();
  }
}
