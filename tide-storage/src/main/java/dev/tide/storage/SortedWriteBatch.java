package dev.tide.storage;

import dev.tide.common.store.StoreKeys;
import java.util.Arrays;

/**
 * An immutable batch of one state table's writes for one epoch: keys sorted ascending (unsigned)
 * and unique, each with a value or a tombstone. Built by {@link WriteBuffer#freeze()}.
 *
 * <p>Thread-safety: immutable. The key and value arrays are shared, not copied: nobody may modify
 * them once the batch exists.
 */
public final class SortedWriteBatch {
  /** Estimated heap overhead per entry besides key and value bytes. */
  static final int ENTRY_OVERHEAD_BYTES = 48;

  private static final SortedWriteBatch EMPTY = new SortedWriteBatch(new byte[0][], new byte[0][]);

  private final byte[][] keys;
  private final byte[][] values; // null entry = tombstone
  private final long sizeBytes;

  /** Trusted constructor: keys sorted and unique. */
  SortedWriteBatch(byte[][] keys, byte[][] values) {
    this.keys = keys;
    this.values = values;
    long bytes = 0;
    for (int i = 0; i < keys.length; i++) {
      bytes += keys[i].length + (values[i] == null ? 0 : values[i].length) + ENTRY_OVERHEAD_BYTES;
    }
    this.sizeBytes = bytes;
  }

  /**
   * A batch over keys the caller already holds sorted and unique (e.g. a sorted map's keys); a null
   * value is a tombstone. Checks the order (one comparison per key) and takes the arrays over.
   */
  public static SortedWriteBatch ofSorted(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + values.length + " values");
    }
    for (int i = 1; i < keys.length; i++) {
      if (Arrays.compareUnsigned(keys[i - 1], keys[i]) >= 0) {
        throw new IllegalArgumentException("keys are not sorted and unique at index " + i + ": "
            + StoreKeys.toHex(keys[i - 1]) + " then " + StoreKeys.toHex(keys[i]));
      }
    }
    return keys.length == 0 ? EMPTY : new SortedWriteBatch(keys, values);
  }

  /** A batch without entries. */
  public static SortedWriteBatch empty() {
    return EMPTY;
  }

  /** Number of entries. */
  public int size() {
    return keys.length;
  }

  public boolean isEmpty() {
    return keys.length == 0;
  }

  /** Estimated heap bytes of the entries. */
  public long sizeBytes() {
    return sizeBytes;
  }

  /** The {@code i}-th key in ascending order. */
  public byte[] key(int i) {
    return keys[i];
  }

  /** Whether entry {@code i} deletes its key. */
  public boolean isTombstone(int i) {
    return values[i] == null;
  }

  /** The value of entry {@code i}, or null for a tombstone. */
  public byte[] value(int i) {
    return values[i];
  }

  /** Index of the first key {@code >= key}; {@link #size()} if none. */
  int ceil(byte[] key) {
    int lo = 0;
    int hi = keys.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(keys[mid], key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Index of {@code key}, or -1 (a range check first keeps misses cheap). */
  int indexOf(byte[] key) {
    int n = keys.length;
    if (n == 0 || Arrays.compareUnsigned(key, keys[0]) < 0
        || Arrays.compareUnsigned(key, keys[n - 1]) > 0) {
      return -1;
    }
    int i = ceil(key);
    return i < n && Arrays.equals(keys[i], key) ? i : -1;
  }

  @Override
  public String toString() {
    return "SortedWriteBatch(" + keys.length + " entries"
        + (keys.length == 0 ? "" : ", " + StoreKeys.toHex(keys[0]) + ".."
            + StoreKeys.toHex(keys[keys.length - 1])) + ")";
  }
}
