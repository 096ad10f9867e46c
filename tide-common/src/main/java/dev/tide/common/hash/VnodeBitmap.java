package dev.tide.common.hash;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * An immutable set of vnodes out of {@code vnodeCount}. Prints and parses run-length encoded, e.g.
 * {@code "0-63,128-191"} ({@code ""} when empty).
 */
public final class VnodeBitmap {
  private final int vnodeCount;
  private final BitSet bits;

  private VnodeBitmap(int vnodeCount, BitSet bits) {
    this.vnodeCount = vnodeCount;
    this.bits = bits;
  }

  public static VnodeBitmap empty(int vnodeCount) {
    return new VnodeBitmap(vnodeCount, new BitSet(vnodeCount));
  }

  public static VnodeBitmap full(int vnodeCount) {
    BitSet b = new BitSet(vnodeCount);
    b.set(0, vnodeCount);
    return new VnodeBitmap(vnodeCount, b);
  }

  public static VnodeBitmap of(int vnodeCount, int... vnodes) {
    BitSet b = new BitSet(vnodeCount);
    for (int v : vnodes) {
      check(vnodeCount, v);
      b.set(v);
    }
    return new VnodeBitmap(vnodeCount, b);
  }

  public static VnodeBitmap ofBits(int vnodeCount, BitSet bits) {
    if (bits.length() > vnodeCount) {
      throw new IllegalArgumentException("vnode " + (bits.length() - 1) + " out of range 0.." + (vnodeCount - 1));
    }
    return new VnodeBitmap(vnodeCount, (BitSet) bits.clone());
  }

  /** Parses the run-length form produced by {@link #toString()}. */
  public static VnodeBitmap parse(int vnodeCount, String ranges) {
    BitSet b = new BitSet(vnodeCount);
    if (!ranges.isBlank()) {
      for (String part : ranges.split(",")) {
        String p = part.trim();
        int dash = p.indexOf('-');
        try {
          int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
          int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1));
          check(vnodeCount, from);
          check(vnodeCount, to);
          if (to < from) {
            throw new IllegalArgumentException("vnode range '" + p + "' is reversed");
          }
          b.set(from, to + 1);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("vnode range '" + p + "' is not of the form N or N-M");
        }
      }
    }
    return new VnodeBitmap(vnodeCount, b);
  }

  private static void check(int vnodeCount, int v) {
    if (v < 0 || v >= vnodeCount) {
      throw new IllegalArgumentException("vnode " + v + " out of range 0.." + (vnodeCount - 1));
    }
  }

  public int vnodeCount() {
    return vnodeCount;
  }

  public boolean contains(int vnode) {
    return bits.get(vnode);
  }

  public int cardinality() {
    return bits.cardinality();
  }

  public boolean isEmpty() {
    return bits.isEmpty();
  }

  /** Set vnodes in ascending order. */
  public int[] toArray() {
    return bits.stream().toArray();
  }

  public BitSet toBitSet() {
    return (BitSet) bits.clone();
  }

  public boolean isSubsetOf(VnodeBitmap other) {
    sameCount(other, "isSubsetOf");
    BitSet b = (BitSet) bits.clone();
    b.andNot(other.bits);
    return b.isEmpty();
  }

  public VnodeBitmap and(VnodeBitmap other) {
    sameCount(other, "and");
    BitSet b = (BitSet) bits.clone();
    b.and(other.bits);
    return new VnodeBitmap(vnodeCount, b);
  }

  public VnodeBitmap or(VnodeBitmap other) {
    sameCount(other, "or");
    BitSet b = (BitSet) bits.clone();
    b.or(other.bits);
    return new VnodeBitmap(vnodeCount, b);
  }

  public VnodeBitmap andNot(VnodeBitmap other) {
    sameCount(other, "andNot");
    BitSet b = (BitSet) bits.clone();
    b.andNot(other.bits);
    return new VnodeBitmap(vnodeCount, b);
  }

  /** Set operations are defined only between bitmaps over the same vnode count. */
  private void sameCount(VnodeBitmap other, String op) {
    if (other.vnodeCount != vnodeCount) {
      throw new IllegalArgumentException(op + " of vnode bitmaps refused: vnode counts differ (" + vnodeCount + " and "
          + other.vnodeCount + ")");
    }
  }

  /** Inclusive [from, to] runs of set vnodes. */
  public List<int[]> runs() {
    List<int[]> out = new ArrayList<>();
    int i = bits.nextSetBit(0);
    while (i >= 0) {
      int end = bits.nextClearBit(i);
      out.add(new int[] {i, end - 1});
      i = bits.nextSetBit(end);
    }
    return out;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int[] r : runs()) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(r[0]);
      if (r[1] > r[0]) {
        sb.append('-').append(r[1]);
      }
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VnodeBitmap v && v.vnodeCount == vnodeCount && v.bits.equals(bits);
  }

  @Override
  public int hashCode() {
    return bits.hashCode() * 31 + vnodeCount;
  }

  /**
   * A dense owner array, vnode → index of the bitmap holding it, -1 where none does. The bitmaps must
   * be over {@code vnodeCount} vnodes and disjoint (no vnode has two owners).
   */
  public static int[] ownerArray(int vnodeCount, List<VnodeBitmap> bitmaps) {
    int[] owner = new int[vnodeCount];
    Arrays.fill(owner, -1);
    for (int a = 0; a < bitmaps.size(); a++) {
      if (bitmaps.get(a).vnodeCount != vnodeCount) {
        throw new IllegalArgumentException("owner array over " + vnodeCount + " vnodes refused: bitmap " + a + " is over "
            + bitmaps.get(a).vnodeCount + " vnodes");
      }
      for (int v : bitmaps.get(a).toArray()) {
        if (owner[v] >= 0) {
          throw new IllegalArgumentException("owner array refused: vnode " + v + " is in bitmaps " + owner[v] + " and " + a);
        }
        owner[v] = a;
      }
    }
    return owner;
  }
}
