package dev.tide.connectors.format;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Row encodings of the connectors. {@code json}: one object per record, a field per column (a
 * TIMESTAMP is epoch milliseconds), absent fields are null; {@code text}: the record value as one
 * VARCHAR column {@code value}; {@code avro}: see {@link AvroFormat}. Thread-safety: immutable.
 */
public final class RowFormat {
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The formats a source or sink may name. */
  public enum Kind { JSON, TEXT, AVRO }

  private RowFormat() {}

  /**
   * Parses a column list {@code name type, name type, ...} (types: boolean, int, bigint, double,
   * varchar, timestamp). Throws IllegalArgumentException naming the bad entry.
   */
  public static Schema parseColumns(String spec) {
    List<Field> fields = new ArrayList<>();
    for (String part : spec.split(",")) {
      String[] nt = part.trim().split("\\s+");
      if (nt.length != 2 || !nt[0].matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new IllegalArgumentException("column '" + part.trim() + "' must be 'name type' with an identifier name");
      }
      DataType t;
      try {
        t = DataType.valueOf(nt[1].toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("column '" + nt[0] + "' has unknown type '" + nt[1] + "'; known: boolean, int, bigint, double, varchar, timestamp");
      }
      if (fields.stream().anyMatch(f -> f.name().equals(nt[0]))) {
        throw new IllegalArgumentException("column '" + nt[0] + "' is listed twice");
      }
      fields.add(new Field(nt[0], t));
    }
    return new Schema(fields);
  }

  /**
   * Decodes a JSON object into {@code out[0..schema.size())}. Throws IllegalArgumentException on a
   * record that is not a JSON object or a field of the wrong type.
   */
  public static void decodeJson(byte[] value, Schema schema, Object[] out) {
    if (value == null) {
      throw new IllegalArgumentException("record has no value");
    }
    JsonNode n;
    try {
      n = JSON.readTree(value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    for (int i = 0; i < schema.size(); i++) {
      JsonNode f = n.get(schema.field(i).name());
      out[i] = f == null || f.isNull() ? null : value(f, schema.field(i));
    }
  }

  private static Object value(JsonNode f, Field field) {
    DataType t = field.type();
    boolean ok = switch (t) {
      case BOOLEAN -> f.isBoolean();
      case INT -> f.isIntegralNumber() && f.canConvertToInt();
      case BIGINT, TIMESTAMP -> f.isIntegralNumber() && f.canConvertToLong();
      case DOUBLE -> f.isNumber();
      case VARCHAR -> f.isString();
    };
    if (!ok) {
      throw new IllegalArgumentException("field '" + field.name() + "' is " + f + ", not a " + t.sqlName());
    }
    return switch (t) {
      case BOOLEAN -> f.booleanValue();
      case INT -> f.intValue();
      case BIGINT, TIMESTAMP -> f.longValue();
      case DOUBLE -> f.doubleValue();
      case VARCHAR -> f.stringValue();
    };
  }

  /** The JSON object of {@code columns} of {@code row}, named by {@code schema}. */
  public static String encodeJson(Object[] row, Schema schema, int[] columns) {
    ObjectNode o = JSON.createObjectNode();
    for (int c : columns) {
      String name = schema.field(c).name();
      Object v = row[c];
      if (v == null) {
        o.putNull(name);
      } else if (v instanceof Boolean b) {
        o.put(name, b);
      } else if (v instanceof Integer i) {
        o.put(name, i);
      } else if (v instanceof Long l) {
        o.put(name, l);
      } else if (v instanceof Double d) {
        o.put(name, d);
      } else {
        o.put(name, v.toString());
      }
    }
    return o.toString();
  }

  /** Decodes what {@link #encodeJson} wrote back into typed values of {@code columns}. */
  public static Object[] decodeJsonColumns(String json, Schema schema, int[] columns) {
    JsonNode n = JSON.readTree(json);
    Object[] out = new Object[columns.length];
    for (int i = 0; i < columns.length; i++) {
      Field f = schema.field(columns[i]);
      JsonNode v = n.get(f.name());
      out[i] = v == null || v.isNull() ? null : value(v, f);
    }
    return out;
  }

  public static String text(byte[] value) {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }
}
