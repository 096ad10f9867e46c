package dev.tide.common.codec;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Compact, non-order-preserving row encoding for state values: per column a tag byte (0 null, 1
 * present) then INT 4 bytes, BIGINT/TIMESTAMP/DOUBLE 8 bytes, BOOLEAN 1 byte, VARCHAR a 4-byte
 * length and UTF-8 bytes. The column types are known to the reader (the table's schema).
 */
public final class ValueCodec {
  private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private ValueCodec() {}

  public static byte[] encode(DataType[] types, Object[] row) {
    int n = 0;
    byte[][] strings = new byte[types.length][];
    for (int i = 0; i < types.length; i++) {
      n += 1;
      if (row[i] == null) {
        continue;
      }
      n += switch (types[i]) {
        case INT -> 4;
        case BIGINT, TIMESTAMP, DOUBLE -> 8;
        case BOOLEAN -> 1;
        case VARCHAR -> {
          strings[i] = ((String) row[i]).getBytes(StandardCharsets.UTF_8);
          yield 4 + strings[i].length;
        }
      };
    }
    byte[] out = new byte[n];
    int p = 0;
    for (int i = 0; i < types.length; i++) {
      Object v = row[i];
      if (v == null) {
        out[p++] = 0;
        continue;
      }
      out[p++] = 1;
      if (types[i] == DataType.VARCHAR) {
        p = putInt(out, p, strings[i].length);
        System.arraycopy(strings[i], 0, out, p, strings[i].length);
        p += strings[i].length;
      } else {
        p = putFixed(out, p, types[i], v);
      }
    }
    return out;
  }

  /** Writes a non-null value of a fixed-width type at {@code p}; returns the position after it. */
  private static int putFixed(byte[] out, int p, DataType type, Object v) {
    return switch (type) {
      case INT -> putInt(out, p, ((Number) v).intValue());
      case BIGINT, TIMESTAMP -> putLong(out, p, ((Number) v).longValue());
      case DOUBLE -> putLong(out, p, Double.doubleToLongBits(((Number) v).doubleValue()));
      case BOOLEAN -> {
        out[p] = (byte) ((Boolean) v ? 1 : 0);
        yield p + 1;
      }
      case VARCHAR -> throw new IllegalArgumentException("VARCHAR is not of a fixed width");
    };
  }

  /**
   * Writes the encoding of a row of fixed-width types (no VARCHAR) to {@code out}, exactly as {@link
   * #encode(DataType[], Object[])} would, without allocating; returns its length. {@code out} must
   * hold {@link #maxFixedLength} bytes.
   *
   * @throws IllegalArgumentException if a type is VARCHAR
   */
  public static int encodeFixed(DataType[] types, Object[] row, byte[] out) {
    int p = 0;
    for (int i = 0; i < types.length; i++) {
      if (types[i] == DataType.VARCHAR) {
        throw new IllegalArgumentException("column " + i + " of " + Arrays.toString(types)
            + " is VARCHAR: encode rows with strings with encode(types, row)");
      }
      Object v = row[i];
      if (v == null) {
        out[p++] = 0;
        continue;
      }
      out[p++] = 1;
      p = putFixed(out, p, types[i], v);
    }
    return p;
  }

  /** The longest encoding of a row of fixed-width {@code types} ({@link #encodeFixed}): 9 bytes per column. */
  public static int maxFixedLength(DataType[] types) {
    return 9 * types.length;
  }

  /** The length of the encoding of row {@code row} of the columns ({@link #encode(Column[], int, byte[])}). */
  public static int encodedLength(Column[] columns, int row) {
    // Class tests rather than Column.type(): a chunk's columns are of several classes, and a virtual
    // call on them per row would not be inlined.
    int n = 0;
    for (Column c : columns) {
      n += 1;
      if (c.isNull(row)) {
        continue;
      }
      if (c instanceof StringColumn s) {
        n += 4 + s.length(row);
      } else if (c instanceof IntColumn) {
        n += 4;
      } else if (c instanceof BoolColumn) {
        n += 1;
      } else {
        n += 8;
      }
    }
    return n;
  }

  /**
   * Writes the encoding of row {@code row} of the columns to {@code out[0, encodedLength(columns, row))},
   * exactly as {@link #encode(DataType[], Object[])} would encode the row, without boxing or allocating
   * (for callers that copy it out of a reused buffer).
   */
  public static void encode(Column[] columns, int row, byte[] out) {
    int p = 0;
    for (Column c : columns) {
      if (c.isNull(row)) {
        out[p++] = 0;
        continue;
      }
      out[p++] = 1;
      if (c instanceof LongColumn l) {
        p = putLong(out, p, l.getLong(row));
      } else if (c instanceof IntColumn i) {
        p = putInt(out, p, i.getInt(row));
      } else if (c instanceof DoubleColumn d) {
        p = putLong(out, p, Double.doubleToLongBits(d.getDouble(row)));
      } else if (c instanceof BoolColumn b) {
        out[p++] = (byte) (b.getBool(row) ? 1 : 0);
      } else {
        StringColumn s = (StringColumn) c;
        int len = s.length(row);
        p = putInt(out, p, len);
        System.arraycopy(s.data(), s.offset(row), out, p, len);
        p += len;
      }
    }
  }

  /**
   * Decodes a row encoded by {@link #encode} with the same types.
   *
   * @throws IllegalArgumentException if {@code in} is shorter or longer than a row of {@code types}
   */
  public static Object[] decode(DataType[] types, byte[] in) {
    Object[] row = new Object[types.length];
    int p = 0;
    for (int i = 0; i < types.length; i++) {
      need(types, in, p, 1);
      if (in[p++] == 0) {
        continue;
      }
      switch (types[i]) {
        case INT -> {
          need(types, in, p, 4);
          row[i] = getInt(in, p);
          p += 4;
        }
        case BIGINT, TIMESTAMP -> {
          need(types, in, p, 8);
          row[i] = getLong(in, p);
          p += 8;
        }
        case DOUBLE -> {
          need(types, in, p, 8);
          row[i] = Double.longBitsToDouble(getLong(in, p));
          p += 8;
        }
        case BOOLEAN -> {
          need(types, in, p, 1);
          row[i] = in[p++] != 0;
        }
        case VARCHAR -> {
          need(types, in, p, 4);
          int len = getInt(in, p);
          p += 4;
          if (len < 0) {
            throw new IllegalArgumentException("value has a negative string length " + len + " at byte " + (p - 4)
                + " for types " + Arrays.toString(types));
          }
          need(types, in, p, len);
          row[i] = new String(in, p, len, StandardCharsets.UTF_8);
          p += len;
        }
      }
    }
    if (p != in.length) {
      throw new IllegalArgumentException("value of " + in.length + " bytes has " + (in.length - p)
          + " bytes beyond a row of types " + Arrays.toString(types));
    }
    return row;
  }

  private static void need(DataType[] types, byte[] in, int p, int n) {
    if (n > in.length - p) {
      throw new IllegalArgumentException("value of " + in.length + " bytes too short for types " + Arrays.toString(types));
    }
  }

  private static int putInt(byte[] b, int p, int v) {
    INT_BE.set(b, p, v);
    return p + 4;
  }

  private static int putLong(byte[] b, int p, long v) {
    LONG_BE.set(b, p, v);
    return p + 8;
  }

  private static int getInt(byte[] b, int p) {
    return (int) INT_BE.get(b, p);
  }

  private static long getLong(byte[] b, int p) {
    return (long) LONG_BE.get(b, p);
  }
}
