package dev.tide.common.codec;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StringColumn;
import dev.tide.common.types.DataType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Memcomparable encoding: byte-wise unsigned comparison of encodings orders like the values.
 *
 * <p>Per value: null is {@code 0x00} (nulls first); otherwise {@code 0x01} then INT as 4 bytes and
 * BIGINT/TIMESTAMP as 8 bytes big-endian with the sign bit flipped; DOUBLE as its bits with the sign
 * bit flipped (all bits if negative); BOOLEAN as one byte; VARCHAR as its UTF-8 bytes with each
 * {@code 0x00} escaped as {@code 0x00 0xFF}, terminated by {@code 0x00 0x00}.
 *
 * <p>Equivalences: {@code -0.0} encodes as {@code 0.0} and every NaN as the canonical NaN, which
 * sorts above {@code +Infinity}; decoding gives back {@code 0.0} and {@code NaN}. VARCHAR orders by
 * Unicode code point (UTF-8 byte order), not by {@link String#compareTo}'s UTF-16 order.
 *
 * <p>A state key is {@code table_id (4 B) | vnode (2 B) | encoded pk}; see {@link #startStateKey}.
 * Thread-safety: confined (reusable buffer).
 */
public final class KeyEncoder {
  private byte[] buf = new byte[64];
  private int len;

  public KeyEncoder reset() {
    len = 0;
    return this;
  }

  public int length() {
    return len;
  }

  /** Truncates to an earlier length (to reuse a common prefix). */
  public void truncate(int length) {
    len = length;
  }

  /** The encoder's buffer, whose first {@link #length} bytes are the key: valid until the next write; do not modify. */
  public byte[] buffer() {
    return buf;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }

  /** Resets and writes the 6-byte prefix of a state key. */
  public KeyEncoder startStateKey(int tableId, int vnode) {
    len = 0;
    ensure(6);
    buf[0] = (byte) (tableId >>> 24);
    buf[1] = (byte) (tableId >>> 16);
    buf[2] = (byte) (tableId >>> 8);
    buf[3] = (byte) tableId;
    buf[4] = (byte) (vnode >>> 8);
    buf[5] = (byte) vnode;
    len = 6;
    return this;
  }

  public KeyEncoder putNull() {
    ensure(1);
    buf[len++] = 0;
    return this;
  }

  public KeyEncoder putInt(int v) {
    ensure(5);
    buf[len++] = 1;
    int x = v ^ 0x80000000;
    buf[len++] = (byte) (x >>> 24);
    buf[len++] = (byte) (x >>> 16);
    buf[len++] = (byte) (x >>> 8);
    buf[len++] = (byte) x;
    return this;
  }

  public KeyEncoder putLong(long v) {
    ensure(9);
    buf[len++] = 1;
    writeRawLong(v ^ Long.MIN_VALUE);
    return this;
  }

  private void writeRawLong(long x) {
    for (int b = 0; b < 8; b++) {
      buf[len++] = (byte) (x >>> (56 - 8 * b));
    }
  }

  public KeyEncoder putDouble(double d) {
    ensure(9);
    buf[len++] = 1;
    long bits = Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
    writeRawLong(bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
    return this;
  }

  public KeyEncoder putBool(boolean v) {
    ensure(2);
    buf[len++] = 1;
    buf[len++] = (byte) (v ? 1 : 0);
    return this;
  }

  public KeyEncoder putString(byte[] data, int off, int n) {
    ensure(1 + 2 * n + 2);
    buf[len++] = 1;
    for (int i = off; i < off + n; i++) {
      byte b = data[i];
      buf[len++] = b;
      if (b == 0) {
        buf[len++] = (byte) 0xFF;
      }
    }
    buf[len++] = 0;
    buf[len++] = 0;
    return this;
  }

  public KeyEncoder putString(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return putString(b, 0, b.length);
  }

  /** Appends row {@code row} of {@code c}. */
  public KeyEncoder put(Column c, int row) {
    if (c.isNull(row)) {
      return putNull();
    }
    if (c instanceof LongColumn l) {
      return putLong(l.getLong(row));
    } else if (c instanceof IntColumn i) {
      return putInt(i.getInt(row));
    } else if (c instanceof DoubleColumn d) {
      return putDouble(d.getDouble(row));
    } else if (c instanceof BoolColumn b) {
      return putBool(b.getBool(row));
    }
    StringColumn s = (StringColumn) c;
    return putString(s.data(), s.offset(row), s.length(row));
  }

  /** Appends a boxed value of the given type. */
  public KeyEncoder put(DataType type, Object v) {
    if (v == null) {
      return putNull();
    }
    return switch (type) {
      case INT -> putInt(((Number) v).intValue());
      case BIGINT, TIMESTAMP -> putLong(((Number) v).longValue());
      case DOUBLE -> putDouble(((Number) v).doubleValue());
      case BOOLEAN -> putBool((Boolean) v);
      case VARCHAR -> putString((String) v);
    };
  }

  /** Encodes boxed values of the given types (a whole key) into a fresh array. */
  public static byte[] encode(DataType[] types, Object[] values) {
    KeyEncoder e = new KeyEncoder();
    for (int i = 0; i < types.length; i++) {
      e.put(types[i], values[i]);
    }
    return e.toByteArray();
  }
}
