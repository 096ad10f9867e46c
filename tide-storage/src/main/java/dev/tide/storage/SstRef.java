package dev.tide.storage;

import dev.tide.proto.store.SstInfo;
import java.util.Arrays;

/** An SST of the read view with its key range decoded once for cheap range checks. */
final class SstRef {
  final SstInfo info;
  final byte[] smallest;
  final byte[] largest;

  SstRef(SstInfo info) {
    this.info = info;
    this.smallest = info.getSmallestKey().toByteArray();
    this.largest = info.getLargestKey().toByteArray();
  }

  boolean contains(byte[] key) {
    return Arrays.compareUnsigned(key, smallest) >= 0 && Arrays.compareUnsigned(key, largest) <= 0;
  }

  /** Whether the SST may hold keys in {@code [from, to)}. */
  boolean overlaps(byte[] from, byte[] to) {
    return Arrays.compareUnsigned(largest, from) >= 0
        && (to == null || Arrays.compareUnsigned(smallest, to) < 0);
  }

  /** In a level sorted by key: the SST whose range holds {@code key}, or null. */
  static SstRef find(SstRef[] level, byte[] key) {
    int i = lastWithSmallestAtMost(level, key);
    return i >= 0 && Arrays.compareUnsigned(key, level[i].largest) <= 0 ? level[i] : null;
  }

  /** Index of the last SST with smallest key {@code <= key}; -1 if none. */
  static int lastWithSmallestAtMost(SstRef[] level, byte[] key) {
    int lo = 0;
    int hi = level.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(level[mid].smallest, key) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }

  /** Index of the first SST with largest key {@code >= key}; length if none. */
  static int firstWithLargestAtLeast(SstRef[] level, byte[] key) {
    int lo = 0;
    int hi = level.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(level[mid].largest, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Index of the last SST with smallest key {@code < key}; -1 if none. */
  static int lastWithSmallestBelow(SstRef[] level, byte[] key) {
    int lo = 0;
    int hi = level.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(level[mid].smallest, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1;
  }
}
