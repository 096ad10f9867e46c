package dev.tide.sql;

import dev.tide.common.types.DataType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** PostgreSQL type OIDs of Tide's types and their text and binary value encodings. */
final class PgTypes {
  static final int BOOL = 16;
  static final int INT8 = 20;
  static final int INT4 = 23;
  static final int TEXT = 25;
  static final int FLOAT8 = 701;
  static final int VARCHAR = 1043;
  static final int TIMESTAMP = 1114;
  /** Microseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01. */
  private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
  private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private PgTypes() {}

  static int oid(DataType t) {
    return switch (t) {
      case BOOLEAN -> BOOL;
      case INT -> INT4;
      case BIGINT -> INT8;
      case DOUBLE -> FLOAT8;
      case VARCHAR -> VARCHAR;
      case TIMESTAMP -> TIMESTAMP;
    };
  }

  static int size(DataType t) {
    return switch (t) {
      case BOOLEAN -> 1;
      case INT -> 4;
      case BIGINT, DOUBLE, TIMESTAMP -> 8;
      case VARCHAR -> -1;
    };
  }

  static String text(DataType t, Object v) {
    return switch (t) {
      case BOOLEAN -> ((Boolean) v) ? "t" : "f";
      case TIMESTAMP -> TS.format(Instant.ofEpochMilli(((Number) v).longValue()));
      case DOUBLE -> {
        double d = ((Number) v).doubleValue();
        yield Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Double.toString(d);
      }
      default -> v.toString();
    };
  }

  /** The value as the client asked for it: text (format 0) or binary (format 1). */
  static byte[] encode(DataType t, Object v, int format) {
    if (format == 0 || t == DataType.VARCHAR) {
      return text(t, v).getBytes(StandardCharsets.UTF_8);
    }
    return switch (t) {
      case BOOLEAN -> new byte[] {(byte) (((Boolean) v) ? 1 : 0)};
      case INT -> ByteBuffer.allocate(4).putInt(((Number) v).intValue()).array();
      case BIGINT -> ByteBuffer.allocate(8).putLong(((Number) v).longValue()).array();
      case DOUBLE -> ByteBuffer.allocate(8).putDouble(((Number) v).doubleValue()).array();
      case TIMESTAMP -> ByteBuffer.allocate(8).putLong(((Number) v).longValue() * 1000 - PG_EPOCH_MICROS).array();
      case VARCHAR -> throw new AssertionError();
    };
  }
}
