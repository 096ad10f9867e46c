package dev.tide.stream.operator;

import java.util.Arrays;

/**
 * A hash map from fixed-width keys of longs to values (open addressing, linear probing), so a
 * lookup per row boxes nothing. The caller's probe array is copied on insert.
 *
 * <p>Thread-safety: confined to one thread.
 */
final class LongKeyMap<V> {
  private final int width;
  private long[] keys;
  private Object[] values; // null = empty slot
  private int size;

  LongKeyMap(int width) {
    this.width = width;
    this.keys = new long[16 * width];
    this.values = new Object[16];
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked")
  V get(long[] key) {
    int mask = values.length - 1;
    for (int i = slot(key, 0, mask); ; i = (i + 1) & mask) {
      Object v = values[i];
      if (v == null) {
        return null;
      }
      if (equalAt(i, key)) {
        return (V) v;
      }
    }
  }

  /** Inserts or replaces the value of {@code key}. */
  void put(long[] key, V value) {
    int mask = values.length - 1;
    int i = slot(key, 0, mask);
    while (values[i] != null && !equalAt(i, key)) {
      i = (i + 1) & mask;
    }
    if (values[i] == null) {
      System.arraycopy(key, 0, keys, i * width, width);
      if (++size * 2 > values.length) {
        values[i] = value;
        grow();
        return;
      }
    }
    values[i] = value;
  }

  /** Removes {@code key} if present (backward-shift deletion keeps probe chains intact). */
  void remove(long[] key) {
    int mask = values.length - 1;
    int i = slot(key, 0, mask);
    while (true) {
      if (values[i] == null) {
        return;
      }
      if (equalAt(i, key)) {
        break;
      }
      i = (i + 1) & mask;
    }
    size--;
    int hole = i;
    for (int j = (hole + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = slot(keys, j * width, mask);
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

  void clear() {
    Arrays.fill(values, null);
    size = 0;
  }

  /** Keeps only the entries whose key {@code keep} accepts (it gets one array, refilled for each key: it must not keep it). */
  @SuppressWarnings("unchecked")
  void retainKeys(java.util.function.Predicate<long[]> keep) {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length];
    values = new Object[oldValues.length];
    size = 0;
    long[] key = new long[width];
    for (int s = 0; s < oldValues.length; s++) {
      if (oldValues[s] != null) {
        System.arraycopy(oldKeys, s * width, key, 0, width);
        if (keep.test(key)) {
          put(key, (V) oldValues[s]);
        }
      }
    }
  }

  private boolean equalAt(int slot, long[] key) {
    int base = slot * width;
    for (int k = 0; k < width; k++) {
      if (keys[base + k] != key[k]) {
        return false;
      }
    }
    return true;
  }

  private int slot(long[] a, int from, int mask) {
    long h = 0;
    for (int k = 0; k < width; k++) {
      h = (h ^ a[from + k]) * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
    }
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldValues.length * 2];
    int mask = values.length - 1;
    for (int s = 0; s < oldValues.length; s++) {
      if (oldValues[s] != null) {
        int i = slot(oldKeys, s * width, mask);
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        System.arraycopy(oldKeys, s * width, keys, i * width, width);
        values[i] = oldValues[s];
      }
    }
  }
}
