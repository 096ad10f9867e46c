package dev.tide.stream.operator;

import java.util.Arrays;
import java.util.function.Predicate;

/**
 * A hash map from fixed-width keys of longs to values (open addressing, linear probing), so a
 * lookup per row boxes nothing. The caller's probe array is copied on insert.
 *
 * <p>The table is split by the hash's top bits into {@value #SEGMENTS} segments, each a table of
 * its own, allocated on first use and grown on its own: a map of millions of keys is hundreds of
 * arrays of at most a few hundred KiB, not a few arrays of tens of MiB. So no array is a
 * humongous object for the G1 collector (allocated in old regions of its own, and the usual
 * trigger of full collections when the heap is fragmented), and growing the map copies one
 * segment at a time instead of the whole map at once.
 *
 * <p>Thread-safety: confined to one thread.
 */
final class LongKeyMap<V> {
  static final int SEGMENTS = 256;
  private static final int SEGMENT_SHIFT = 64 - Integer.numberOfTrailingZeros(SEGMENTS);

  private final int width;
  private final Segment[] segments = new Segment[SEGMENTS];
  private int size;

  /** One open-addressing table: keys of slot {@code i} at {@code keys[i * width ..]}; a null value is an empty slot. */
  private static final class Segment {
    long[] keys;
    Object[] values;
    int size;

    Segment(int width, int slots) {
      keys = new long[slots * width];
      values = new Object[slots];
    }
  }

  LongKeyMap(int width) {
    this.width = width;
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  V get(long[] key) {
    long h = hash(key, 0);
    Segment s = segments[(int) (h >>> SEGMENT_SHIFT)];
    if (s == null) {
      return null;
    }
    Object[] values = s.values;
    int mask = values.length - 1;
    for (int i = slot(h, mask); ; i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (equalAt(s.keys, i, key)) {
        return (V) v;
      }
    }
  }

  /** Inserts or replaces the value of {@code key}. */
  void put(long[] key, V value) {
    long h = hash(key, 0);
    int seg = (int) (h >>> SEGMENT_SHIFT);
    Segment s = segments[seg];
    if (s == null) {
      s = segments[seg] = new Segment(width, 16);
    }
    int mask = s.values.length - 1;
    int i = slot(h, mask);
    while (s.values[i] != null && !equalAt(s.keys, i, key)) {
      i = (i + 1) & mask;
    }
    if (s.values[i] == null) {
      System.arraycopy(key, 0, s.keys, i * width, width);
      size++;
      if (++s.size * 2 > s.values.length) {
        s.values[i] = value;
        grow(s);
        return;
      }
    }
    s.values[i] = value;
  }

  /** Removes {@code key} if present (backward-shift deletion keeps probe chains intact). */
  void remove(long[] key) {
    long h = hash(key, 0);
    Segment s = segments[(int) (h >>> SEGMENT_SHIFT)];
    if (s == null) {
      return;
    }
    Object[] values = s.values;
    long[] keys = s.keys;
    int mask = values.length - 1;
    int i = slot(h, mask);
    while (true) {
      if (values[i] == null) {
        return;
      }
      if (equalAt(keys, i, key)) {
        break;
      }
      i = (i + 1) & mask;
    }
    size--;
    s.size--;
    int hole = i;
    for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slot(hash(keys, j * width), mask);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      boolean stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (!stays) {
        System.arraycopy(keys, j * width, keys, hole * width, width);
        values[hole] = values[j];
        hole = j;
      }
    }
    values[hole] = null;
  }

  /** Removes every entry; segments keep their capacity (a map cleared per chunk or barrier fills up again). */
  void clear() {
    for (Segment s : segments) {
      if (s != null && s.size > 0) {
        Arrays.fill(s.values, null);
        s.size = 0;
      }
    }
    size = 0;
  }

  /** Keeps only the entries whose key {@code keep} accepts (it gets one array, refilled for each key: it must not keep it). */
  @SuppressWarnings("unchecked")
  void retainKeys(Predicate<long[]> keep) {
    long[] key = new long[width];
    for (int seg = 0; seg < SEGMENTS; seg++) {
      Segment old = segments[seg];
      if (old == null) {
        continue;
      }
      size -= old.size;
      segments[seg] = null;
      for (int i = 0; i < old.values.length; i++) {
        if (old.values[i] != null) {
          System.arraycopy(old.keys, i * width, key, 0, width);
          if (keep.test(key)) {
            put(key, (V) old.values[i]);
          }
        }
      }
    }
  }

  private boolean equalAt(long[] keys, int slot, long[] key) {
    int base = slot * width;
    for (int k = 0; k < width; k++) {
      if (keys[base + k] != key[k]) {
        return false;
      }
    }
    return true;
  }

  /** The mixed hash of the key at {@code a[from, from + width)}: its top bits pick the segment, its folded low bits the slot. */
  private long hash(long[] a, int from) {
    long h = 0;
    for (int k = 0; k < width; k++) {
      h = (h ^ a[from + k]) * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
    }
    return h;
  }

  private static int slot(long h, int mask) {
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private void grow(Segment s) {
    long[] oldKeys = s.keys;
    Object[] oldValues = s.values;
    s.keys = new long[oldKeys.length * 2];
    s.values = new Object[oldValues.length * 2];
    int mask = s.values.length - 1;
    for (int j = 0; j < oldValues.length; j++) {
      if (oldValues[j] != null) {
        int i = slot(hash(oldKeys, j * width), mask);
        while (s.values[i] != null) {
          i = (i + 1) & mask;
        }
        System.arraycopy(oldKeys, j * width, s.keys, i * width, width);
        s.values[i] = oldValues[j];
      }
    }
  }
}
