package dev.tide.connectors.format;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.SchemaParseException;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Avro records (Apache Avro's generic API) as rows. A record's fields map to columns by name:
 * boolean, int, long, float and double, string and enum, {@code long} with logical type
 * {@code timestamp-millis} or {@code timestamp-micros} (a TIMESTAMP column, in milliseconds), and
 * unions of {@code null} with one of them (nullable). A column whose field the record lacks is null.
 * With the Confluent wire format ({@link #CONFLUENT_MAGIC}) a value starts with a zero byte and the
 * 4-byte big-endian id of its writer schema in a schema registry.
 *
 * <p>Thread-safety: the static methods are; a {@link Reader} or {@link Writer} is confined to one thread.
 */
public final class AvroFormat {
  /** The first byte of a value in the Confluent wire format. */
  public static final byte CONFLUENT_MAGIC = 0;

  private AvroFormat() {}

  /** Parses an Avro schema from JSON; IllegalArgumentException with Avro's reason. */
  public static org.apache.avro.Schema parse(String json) {
    try {
      return new org.apache.avro.Schema.Parser().parse(json);
    } catch (SchemaParseException | NullPointerException e) {
      throw new IllegalArgumentException("not an Avro schema: " + e.getMessage());
    }
  }

  /** The columns of a record schema, a field each; IllegalArgumentException naming a field of a type Tide has no column for. */
  public static Schema columns(org.apache.avro.Schema record) {
    if (record.getType() != org.apache.avro.Schema.Type.RECORD) {
      throw new IllegalArgumentException("the Avro schema is a " + record.getType().getName() + ", not a record");
    }
    List<Field> fields = new ArrayList<>();
    for (org.apache.avro.Schema.Field f : record.getFields()) {
      DataType t = typeOf(f.schema());
      if (t == null) {
        throw new IllegalArgumentException("Avro field '" + f.name() + "' has type " + f.schema()
            + ", which maps to no column type (boolean, int, long, float, double, string, enum, timestamp-millis/micros, or a union of null and one)");
      }
      fields.add(new Field(f.name(), t));
    }
    return new Schema(fields);
  }

  /** The column type of an Avro type, or null if there is none. */
  static DataType typeOf(org.apache.avro.Schema s) {
    org.apache.avro.Schema t = nonNull(s);
    if (t == null) {
      return null;
    }
    LogicalType l = t.getLogicalType();
    return switch (t.getType()) {
      case BOOLEAN -> DataType.BOOLEAN;
      case INT -> l == null ? DataType.INT : null;
      case LONG -> l == null ? DataType.BIGINT
          : l instanceof LogicalTypes.TimestampMillis || l instanceof LogicalTypes.TimestampMicros ? DataType.TIMESTAMP : null;
      case FLOAT, DOUBLE -> DataType.DOUBLE;
      case STRING, ENUM -> DataType.VARCHAR;
      default -> null;
    };
  }

  /** {@code s} itself, or the one non-null branch of a union with null; null for any other union. */
  private static org.apache.avro.Schema nonNull(org.apache.avro.Schema s) {
    if (s.getType() != org.apache.avro.Schema.Type.UNION) {
      return s;
    }
    org.apache.avro.Schema only = null;
    for (org.apache.avro.Schema b : s.getTypes()) {
      if (b.getType() != org.apache.avro.Schema.Type.NULL) {
        if (only != null) {
          return null;
        }
        only = b;
      }
    }
    return only;
  }

  /**
   * Checks that {@code record} has, for each of {@code columns}, a field of that name whose type
   * reads into the column's ({@code writing}: the column's type writes into the field's); an int
   * widens to a bigint, a timestamp-millis long is a timestamp. IllegalArgumentException naming the field.
   */
  public static void checkCovers(org.apache.avro.Schema record, Schema columns, boolean writing) {
    Schema fields = columns(record);
    for (Field c : columns.fields()) {
      int i = fields.indexOf(c.name());
      if (i < 0) {
        throw new IllegalArgumentException("the Avro schema has no field '" + c.name() + "' (its fields: " + fields.names() + ")");
      }
      if (writing ? !readsInto(c.type(), fields.type(i)) : !readsInto(fields.type(i), c.type())) {
        throw new IllegalArgumentException("Avro field '" + c.name() + "' is a " + fields.type(i).sqlName() + ", column '" + c.name()
            + "' a " + c.type().sqlName());
      }
    }
  }

  private static boolean readsInto(DataType field, DataType column) {
    return field == column || (field == DataType.INT && column == DataType.BIGINT);
  }

  /**
   * The record schema Tide writes for {@code columns} of {@code schema} when none is given: a
   * nullable field per column (long with timestamp-millis for a TIMESTAMP), default null.
   */
  public static org.apache.avro.Schema recordFor(String name, Schema schema, int[] columns) {
    SchemaBuilder.FieldAssembler<org.apache.avro.Schema> f = SchemaBuilder.record(name).namespace("dev.tide").fields();
    for (int c : columns) {
      org.apache.avro.Schema t = switch (schema.type(c)) {
        case BOOLEAN -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BOOLEAN);
        case INT -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
        case BIGINT -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG);
        case DOUBLE -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.DOUBLE);
        case VARCHAR -> org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING);
        case TIMESTAMP -> LogicalTypes.timestampMillis().addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
      };
      f = f.name(schema.field(c).name()).type(org.apache.avro.Schema.createUnion(
          org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL), t)).withDefault(null);
    }
    return f.endRecord();
  }

  /** A valid Avro name made of {@code s} (topic names may hold '.' and '-'). */
  public static String avroName(String s) {
    String n = s.replaceAll("[^A-Za-z0-9_]", "_");
    return n.isEmpty() || Character.isDigit(n.charAt(0)) ? "_" + n : n;
  }

  /** The schema id of a Confluent wire-format value; IllegalArgumentException if it is not one. */
  public static int schemaId(byte[] value) {
    if (value == null || value.length < 5 || value[0] != CONFLUENT_MAGIC) {
      throw new IllegalArgumentException("not in the Confluent wire format (magic byte 0 and a 4-byte schema id)"
          + (value == null ? ": no value" : value.length < 5 ? ": " + value.length + " bytes" : ": first byte " + value[0]));
    }
    return ByteBuffer.wrap(value, 1, 4).getInt();
  }

  /** Decodes records of one writer schema into rows of given columns. */
  public static final class Reader {
    private final GenericDatumReader<GenericRecord> reader;
    private final Schema columns;
    /** Per column: the position of its field in the writer schema, or -1 (always null). */
    private final int[] position;
    private final boolean[] micros;
    private BinaryDecoder decoder;
    private GenericRecord reuse;

    /** IllegalArgumentException if {@code writer} cannot be read into {@code columns}. */
    public Reader(org.apache.avro.Schema writer, Schema columns) {
      if (writer.getType() != org.apache.avro.Schema.Type.RECORD) {
        throw new IllegalArgumentException("the writer schema is a " + writer.getType().getName() + ", not a record");
      }
      this.reader = new GenericDatumReader<>(writer);
      this.columns = columns;
      this.position = new int[columns.size()];
      this.micros = new boolean[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        org.apache.avro.Schema.Field f = writer.getField(columns.field(i).name());
        position[i] = f == null ? -1 : f.pos();
        if (f != null) {
          DataType t = typeOf(f.schema());
          if (t == null || !readsInto(t, columns.type(i))) {
            throw new IllegalArgumentException("Avro field '" + f.name() + "' of type " + f.schema() + " does not read into column '"
                + columns.field(i).name() + "' " + columns.type(i).sqlName());
          }
          org.apache.avro.Schema nn = nonNull(f.schema());
          micros[i] = nn.getLogicalType() instanceof LogicalTypes.TimestampMicros;
        }
      }
    }

    /** Decodes {@code value[offset..]} into {@code out[0..columns)}; IllegalArgumentException if it is not such a record. */
    public void decode(byte[] value, int offset, Object[] out) {
      if (value == null) {
        throw new IllegalArgumentException("record has no value");
      }
      try {
        decoder = DecoderFactory.get().binaryDecoder(value, offset, value.length - offset, decoder);
        reuse = reader.read(reuse, decoder);
        if (!decoder.isEnd()) {
          throw new IllegalArgumentException("Avro record ends before the value does (" + (value.length - offset) + " bytes)");
        }
      } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
        throw new IllegalArgumentException("not an Avro record of the schema: " + e);
      }
      for (int i = 0; i < out.length && i < position.length; i++) {
        Object v = position[i] < 0 ? null : reuse.get(position[i]);
        out[i] = v == null ? null : column(v, columns.type(i), micros[i]);
      }
    }

    private static Object column(Object v, DataType t, boolean micros) {
      return switch (t) {
        case BOOLEAN -> v;
        case INT -> v;
        case BIGINT -> ((Number) v).longValue();
        case TIMESTAMP -> micros ? Math.floorDiv((Long) v, 1000L) : v;
        case DOUBLE -> ((Number) v).doubleValue();
        case VARCHAR -> v.toString();
      };
    }
  }

  /** Encodes rows (given columns of a Tide schema) as records of one schema, optionally in the Confluent wire format. */
  public static final class Writer {
    private final org.apache.avro.Schema record;
    private final GenericDatumWriter<GenericRecord> writer;
    private final int[] fieldOf;
    private final DataType[] types;
    private final int schemaId;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private BinaryEncoder encoder;

    /**
     * Writes {@code columns} of {@code schema} as {@code record} (it must cover them, see
     * {@link #checkCovers}; other fields get their defaults); {@code schemaId} >= 0 prefixes the
     * Confluent header with that id, -1 writes bare Avro binary.
     */
    public Writer(org.apache.avro.Schema record, Schema schema, int[] columns, int schemaId) {
      this.record = record;
      this.writer = new GenericDatumWriter<>(record);
      this.fieldOf = new int[columns.length];
      this.types = new DataType[columns.length];
      for (int i = 0; i < columns.length; i++) {
        fieldOf[i] = record.getField(schema.field(columns[i]).name()).pos();
        types[i] = schema.type(columns[i]);
      }
      this.schemaId = schemaId;
    }

    /** The record of {@code values} (one per column, in order), encoded. */
    public byte[] encode(Object[] values) {
      GenericData.Record r = new GenericData.Record(record);
      for (org.apache.avro.Schema.Field f : record.getFields()) {
        if (f.hasDefaultValue()) {
          r.put(f.pos(), GenericData.get().getDefaultValue(f));
        }
      }
      for (int i = 0; i < fieldOf.length; i++) {
        Object v = values[i];
        org.apache.avro.Schema fs = nonNull(record.getFields().get(fieldOf[i]).schema());
        if (v != null && fs.getType() == org.apache.avro.Schema.Type.ENUM) {
          v = new GenericData.EnumSymbol(fs, v.toString());
        } else if (v instanceof Integer n && fs.getType() == org.apache.avro.Schema.Type.LONG) {
          v = n.longValue();
        } else if (v != null && fs.getType() == org.apache.avro.Schema.Type.FLOAT) {
          v = ((Number) v).floatValue();
        } else if (v != null && types[i] == DataType.TIMESTAMP && fs.getLogicalType() instanceof LogicalTypes.TimestampMicros) {
          v = (Long) v * 1000L;
        }
        r.put(fieldOf[i], v);
      }
      bytes.reset();
      if (schemaId >= 0) {
        bytes.write(CONFLUENT_MAGIC);
        bytes.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
      }
      try {
        encoder = EncoderFactory.get().binaryEncoder(bytes, encoder);
        writer.write(r, encoder);
        encoder.flush();
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("row does not fit the Avro schema " + record.getFullName() + ": " + e.getMessage(), e);
      }
      return bytes.toByteArray();
    }
  }
}
