package dev.tide.bench;

import java.util.List;

/**
 * An order-independent fingerprint of a multiset of rows: the row count and two sums of independent
 * 64-bit hashes of each row. Two engines' results are taken as equal when their fingerprints are
 * equal; fingerprints of parts (one per parallel sink) {@link #plus add up}, so no engine has to
 * gather its rows in one place.
 *
 * <p>Values are hashed by kind, not by class: every integral number as a long, every floating-point
 * number as the bits of a double ({@code -0.0} as {@code 0.0}), strings by their characters, null
 * apart. So a Tide view row ({@code Long}, {@code Double}, {@code String}) and a Flink tuple with
 * the same values hash alike.
 *
 * @param rows rows added
 * @param sumA sum (mod 2^64) of the rows' first hash
 * @param sumB sum (mod 2^64) of the rows' second hash
 */
public record RowFingerprint(long rows, long sumA, long sumB) {
  public static final RowFingerprint EMPTY = new RowFingerprint(0, 0, 0);

  private static final long GAMMA = 0x9E3779B97F4A7C15L;
  private static final long SALT_A = 0x2545F4914F6CDD1DL;
  private static final long SALT_B = 0x62A9D9ED799705F5L;

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

  /** Accumulates rows; not thread-safe (one per sink writer). */
  public static final class Builder {
    private long rows;
    private long sumA;
    private long sumB;

    public void add(Object[] row) {
      long h = GAMMA;
      for (Object v : row) {
        h = mix(h * 31 + valueHash(v));
      }
      addRowHash(h);
    }

    public void add(List<?> row) {
      long h = GAMMA;
      for (Object v : row) {
        h = mix(h * 31 + valueHash(v));
      }
      addRowHash(h);
    }

    private void addRowHash(long h) {
      rows++;
      sumA += mix(h ^ SALT_A);
      sumB += mix(h ^ SALT_B);
    }

    public RowFingerprint build() {
      return new RowFingerprint(rows, sumA, sumB);
    }
  }

  static long valueHash(Object v) {
    if (v == null) {
      return 0x5BD1E995L;
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return mix(Double.doubleToLongBits(d == 0.0 ? 0.0 : d) ^ 0x3C6EF372FE94F82BL);
    }
    if (v instanceof Number n) {
      return mix(n.longValue() ^ 0x1B873593L);
    }
    if (v instanceof CharSequence s) {
      long h = 0xCC9E2D51L;
      for (int i = 0; i < s.length(); i++) {
        h = h * 0x100000001B3L + s.charAt(i);
      }
      return mix(h ^ s.length());
    }
    throw new IllegalArgumentException("fingerprint of a " + v.getClass().getName() + " refused: only numbers, strings and null are row values");
  }

  /** The finalizer of SplitMix64: a bijection of 64-bit values with good avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
