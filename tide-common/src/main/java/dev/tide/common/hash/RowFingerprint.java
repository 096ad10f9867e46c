package dev.tide.common.hash;

import dev.tide.common.chunk.BoolColumn;
import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.DoubleColumn;
import dev.tide.common.chunk.IntColumn;
import dev.tide.common.chunk.LongColumn;
import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.chunk.StringColumn;
import java.util.Arrays;
import java.util.List;

/**
 * An order-independent fingerprint of a multiset of rows: the row count and two sums of independent
 * 64-bit hashes of each row. Two results are taken as equal when their fingerprints are equal.
 * Everything is a sum mod 2^64, so fingerprints of parts (one per parallel sink) {@link #plus add
 * up}, and a removed row subtracts its hashes: the fingerprint of a changelog netted (inserts and
 * update-inserts added, deletes and update-deletes subtracted) is the fingerprint of the multiset
 * the changelog leaves behind.
 *
 * <p>Values are hashed by kind, not by class: every integral number as a long, every floating-point
 * number as the bits of a double ({@code -0.0} as {@code 0.0}), strings by their UTF-16 characters,
 * booleans apart, null apart. So a Tide row ({@code Long}, {@code Double}, {@code String}), a row of
 * a Tide chunk's columns and a Flink tuple with the same values hash alike.
 *
 * @param rows rows added minus rows removed
 * @param sumA sum (mod 2^64) of the rows' first hash
 * @param sumB sum (mod 2^64) of the rows' second hash
 */
public record RowFingerprint(long rows, long sumA, long sumB) {
  public static final RowFingerprint EMPTY = new RowFingerprint(0, 0, 0);

  private static final long GAMMA = 0x9E3779B97F4A7C15L;
  private static final long SALT_A = 0x2545F4914F6CDD1DL;
  private static final long SALT_B = 0x62A9D9ED799705F5L;
  private static final long NULL_HASH = 0x5BD1E995L;
  private static final long LONG_SALT = 0x1B873593L;
  private static final long DOUBLE_SALT = 0x3C6EF372FE94F82BL;
  private static final long STRING_SEED = 0xCC9E2D51L;
  private static final long STRING_PRIME = 0x100000001B3L;
  private static final long BOOLEAN_SALT = 0x6A09E667F3BCC909L;

  public RowFingerprint plus(RowFingerprint o) {
    return new RowFingerprint(rows + o.rows, sumA + o.sumA, sumB + o.sumB);
  }

  /** Hex form for CSV and logs: {@code rows:sumA:sumB}. */
  @Override
  public String toString() {
    return rows + ":" + Long.toHexString(sumA) + ":" + Long.toHexString(sumB);
  }

  public static RowFingerprint parse(String s) {
    String[] p = s.split(":");
    if (p.length != 3) {
      throw new IllegalArgumentException("fingerprint '" + s + "' is not of the form rows:sumA:sumB");
    }
    return new RowFingerprint(Long.parseLong(p[0]), Long.parseUnsignedLong(p[1], 16), Long.parseUnsignedLong(p[2], 16));
  }

  /** Accumulates rows added and removed; not thread-safe (one per sink writer or actor). */
  public static final class Builder {
    private long rows;
    private long sumA;
    private long sumB;
    /** Row hashes of the chunk being added, reused across chunks. */
    private long[] rowHashes = new long[0];

    public void add(Object[] row) {
      long h = GAMMA;
      for (Object v : row) {
        h = mixValue(h, valueHash(v));
      }
      addRowHash(h, 1);
    }

    public void add(List<?> row) {
      addRowHash(rowHash(row), 1);
    }

    /** Removes a row added before (or to be added later: the sums do not care about order). */
    public void remove(List<?> row) {
      addRowHash(rowHash(row), -1);
    }

    public void add(RowFingerprint f) {
      rows += f.rows;
      sumA += f.sumA;
      sumB += f.sumB;
    }

    /**
     * Nets the visible rows of a chunk, projected to {@code columns} (in that order): rows that
     * insert are added, rows that delete are removed. Hashes column by column, without boxing.
     */
    public void add(StreamChunk chunk, int[] columns) {
      int n = chunk.size();
      if (rowHashes.length < n) {
        rowHashes = new long[Math.max(n, StreamChunk.DEFAULT_CAPACITY)];
      }
      long[] h = rowHashes;
      Arrays.fill(h, 0, n, GAMMA);
      for (int c : columns) {
        mixColumn(chunk.column(c), h, n);
      }
      byte[] ops = chunk.ops();
      boolean[] visible = chunk.visibility();
      for (int i = 0; i < n; i++) {
        if (visible == null || visible[i]) {
          addRowHash(h[i], Op.sign(ops[i]));
        }
      }
    }

    private void addRowHash(long h, int sign) {
      rows += sign;
      sumA += sign * mix(h ^ SALT_A);
      sumB += sign * mix(h ^ SALT_B);
    }

    public RowFingerprint build() {
      return new RowFingerprint(rows, sumA, sumB);
    }
  }

  private static long rowHash(List<?> row) {
    long h = GAMMA;
    for (Object v : row) {
      h = mixValue(h, valueHash(v));
    }
    return h;
  }

  private static long mixValue(long rowHash, long valueHash) {
    return mix(rowHash * 31 + valueHash);
  }

  /** Mixes row {@code i}'s value of {@code col} into {@code h[i]} for {@code i < n}, as {@link #valueHash} would. */
  private static void mixColumn(Column col, long[] h, int n) {
    if (col instanceof LongColumn c) {
      long[] v = c.values();
      for (int i = 0; i < n; i++) {
        h[i] = mixValue(h[i], c.isNull(i) ? NULL_HASH : longHash(v[i]));
      }
    } else if (col instanceof IntColumn c) {
      int[] v = c.values();
      for (int i = 0; i < n; i++) {
        h[i] = mixValue(h[i], c.isNull(i) ? NULL_HASH : longHash(v[i]));
      }
    } else if (col instanceof DoubleColumn c) {
      double[] v = c.values();
      for (int i = 0; i < n; i++) {
        h[i] = mixValue(h[i], c.isNull(i) ? NULL_HASH : doubleHash(v[i]));
      }
    } else if (col instanceof StringColumn c) {
      for (int i = 0; i < n; i++) {
        h[i] = mixValue(h[i], c.isNull(i) ? NULL_HASH : utf8Hash(c, i));
      }
    } else {
      BoolColumn c = (BoolColumn) col;
      boolean[] v = c.values();
      for (int i = 0; i < n; i++) {
        h[i] = mixValue(h[i], c.isNull(i) ? NULL_HASH : booleanHash(v[i]));
      }
    }
  }

  static long valueHash(Object v) {
    if (v == null) {
      return NULL_HASH;
    }
    if (v instanceof Double || v instanceof Float) {
      return doubleHash(((Number) v).doubleValue());
    }
    if (v instanceof Number n) {
      return longHash(n.longValue());
    }
    if (v instanceof CharSequence s) {
      long h = STRING_SEED;
      for (int i = 0; i < s.length(); i++) {
        h = h * STRING_PRIME + s.charAt(i);
      }
      return mix(h ^ s.length());
    }
    if (v instanceof Boolean b) {
      return booleanHash(b);
    }
    throw new IllegalArgumentException("fingerprint of a " + v.getClass().getName()
        + " refused: only numbers, strings, booleans and null are row values");
  }

  private static long longHash(long v) {
    return mix(v ^ LONG_SALT);
  }

  private static long doubleHash(double d) {
    return mix(Double.doubleToLongBits(d == 0.0 ? 0.0 : d) ^ DOUBLE_SALT);
  }

  private static long booleanHash(boolean b) {
    return mix((b ? 1L : 0L) ^ BOOLEAN_SALT);
  }

  /** The string hash of row {@code i}'s UTF-8 bytes, over their UTF-16 characters like {@link #valueHash}. */
  private static long utf8Hash(StringColumn c, int i) {
    byte[] data = c.data();
    int from = c.offset(i);
    int to = from + c.length(i);
    long h = STRING_SEED;
    for (int p = from; p < to; p++) {
      byte b = data[p];
      if (b < 0) {
        return valueHash(c.getString(i)); // not ASCII: one UTF-8 byte is not one character
      }
      h = h * STRING_PRIME + b;
    }
    return mix(h ^ (to - from));
  }

  /** The finalizer of SplitMix64: a bijection of 64-bit values with good avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
