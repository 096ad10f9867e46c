package dev.tide.common.hash;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The one vnode function: {@code vnode(key) = crc32c(canonical encoding of the key) mod V}, used by
 * dispatchers, state tables and point reads alike.
 *
 * <p>Canonical encoding per value: null is {@code 0x00}; otherwise {@code 0x01} then INT, BIGINT
 * and TIMESTAMP as 8 bytes big-endian of the long value (so an INT and a BIGINT of equal value hash
 * alike), DOUBLE as 8 bytes of its bits (−0.0 normalized to 0.0), BOOLEAN as one byte, VARCHAR as
 * its UTF-8 bytes followed by their length as 4 bytes.
 *
 * <p>Thread-safety: instances are confined to one thread (they reuse a scratch buffer).
 */
public final class VnodeHasher {
  public static final int DEFAULT_VNODE_COUNT = 256;
  public static final int MAX_VNODE_COUNT = 32768;

  private final CRC32C crc = new CRC32C();
  private final byte[] scratch = new byte[9];

  /** Vnodes of every row of {@code chunk} (visible or not) by the key columns. */
  public int[] vnodes(StreamChunk chunk, int[] keyColumns, int vnodeCount, int[] out) {
    int n = chunk.size();
    if (out == null || out.length < n) {
      out = new int[n];
    }
    if (vnodeCount == 1) {
      java.util.Arrays.fill(out, 0, n, 0);
      return out;
    }
    for (int i = 0; i < n; i++) {
      crc.reset();
      for (int k : keyColumns) {
        update(chunk.column(k), i);
      }
      out[i] = (int) (crc.getValue() % vnodeCount);
    }
    return out;
  }

  /** Vnode of one key given as boxed values (Integer, Long, Double, Boolean, String or null). */
  public int vnode(Object[] key, int vnodeCount) {
    if (vnodeCount == 1) {
      return 0;
    }
    crc.reset();
    for (Object v : key) {
      updateObject(v);
    }
    return (int) (crc.getValue() % vnodeCount);
  }

  /**
   * Vnode of a key of integer values (INT, BIGINT or TIMESTAMP, none null) at {@code positions} of
   * {@code values}: equal to {@link #vnode(Object[], int)} of those values boxed, without boxing.
   */
  public int vnode(long[] values, int[] positions, int vnodeCount) {
    if (vnodeCount == 1) {
      return 0;
    }
    crc.reset();
    for (int p : positions) {
      putLong(values[p]);
    }
    return (int) (crc.getValue() % vnodeCount);
  }

  private void update(Column c, int i) {
    if (c.isNull(i)) {
      crc.update(0);
      return;
    }
    if (c instanceof LongColumn l) {
      putLong(l.getLong(i));
    } else if (c instanceof IntColumn ic) {
      putLong(ic.getInt(i));
    } else if (c instanceof DoubleColumn d) {
      putLong(doubleBits(d.getDouble(i)));
    } else if (c instanceof BoolColumn b) {
      scratch[0] = 1;
      scratch[1] = (byte) (b.getBool(i) ? 1 : 0);
      crc.update(scratch, 0, 2);
    } else {
      StringColumn s = (StringColumn) c;
      crc.update(1);
      crc.update(s.data(), s.offset(i), s.length(i));
      putInt(s.length(i));
    }
  }

  private void updateObject(Object v) {
    if (v == null) {
      crc.update(0);
    } else if (v instanceof Long l) {
      putLong(l);
    } else if (v instanceof Integer n) {
      putLong(n);
    } else if (v instanceof Double d) {
      putLong(doubleBits(d));
    } else if (v instanceof Boolean b) {
      scratch[0] = 1;
      scratch[1] = (byte) (b ? 1 : 0);
      crc.update(scratch, 0, 2);
    } else if (v instanceof String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      crc.update(1);
      crc.update(b, 0, b.length);
      putInt(b.length);
    } else {
      throw new IllegalArgumentException("cannot hash value of class " + v.getClass().getName());
    }
  }

  private static long doubleBits(double d) {
    return Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
  }

  private void putLong(long v) {
    scratch[0] = 1;
    for (int b = 0; b < 8; b++) {
      scratch[1 + b] = (byte) (v >>> (56 - 8 * b));
    }
    crc.update(scratch, 0, 9);
  }

  private void putInt(int v) {
    scratch[0] = (byte) (v >>> 24);
    scratch[1] = (byte) (v >>> 16);
    scratch[2] = (byte) (v >>> 8);
    scratch[3] = (byte) v;
    crc.update(scratch, 0, 4);
  }
}
