package dev.tide.stream.state;

import dev.tide.storage.SortedWriteBatch;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One state table's writes since its last commit: the last write of a key wins, a delete is the
 * {@link #TOMBSTONE} value. Keys are state keys of one table: {@code table_id (4 B) | vnode (2 B) |
 * pk}, with vnodes below the table's vnode count.
 *
 * <p>It starts as an append-only log: a write is two array stores, and {@link #drain} sorts once
 * per epoch — by vnode with a counting sort, then within each vnode by a merge sort that costs one
 * comparison per key when keys came in order (rising row ids). That is all a write-only table (a
 * materialized view) ever needs. The first read turns it into a sorted map for the rest of its
 * life, as a table that is read is read again.
 *
 * <p>Thread-safety: confined to the actor thread.
 */
final class Memtable {
  /** The value of a delete; compared by identity. */
  static final byte[] TOMBSTONE = new byte[0];

  private final int vnodeCount;
  private TreeMap<byte[], byte[]> sorted; // null while a log
  private byte[][] keys = new byte[64][];
  private byte[][] values = new byte[64][];
  private int size;

  Memtable(int vnodeCount) {
    this.vnodeCount = vnodeCount;
  }

  void put(byte[] key, byte[] value) {
    if (sorted != null) {
      sorted.put(key, value);
      return;
    }
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      values = Arrays.copyOf(values, size * 2);
    }
    keys[size] = key;
    values[size] = value;
    size++;
  }

  boolean isEmpty() {
    return sorted == null ? size == 0 : sorted.isEmpty();
  }

  /** The writes as a sorted map (live, for reads); from now on writes go straight into it. */
  NavigableMap<byte[], byte[]> sorted() {
    if (sorted == null) {
      sorted = new TreeMap<>(Arrays::compareUnsigned);
      for (int i = 0; i < size; i++) {
        sorted.put(keys[i], values[i]);
      }
      keys = null;
      values = null;
      size = 0;
    }
    return sorted;
  }

  /** The writes as a batch (tombstones as null values), leaving this memtable empty. */
  SortedWriteBatch drain() {
    return sorted == null ? drainLog() : drainSorted();
  }

  private SortedWriteBatch drainSorted() {
    byte[][] k = new byte[sorted.size()][];
    byte[][] v = new byte[k.length][];
    int i = 0;
    for (Map.Entry<byte[], byte[]> e : sorted.entrySet()) {
      k[i] = e.getKey();
      v[i] = e.getValue() == TOMBSTONE ? null : e.getValue();
      i++;
    }
    sorted.clear();
    return SortedWriteBatch.ofSorted(k, v);
  }

  private SortedWriteBatch drainLog() {
    int n = size;
    int[] order = new int[n];
    int[] starts = new int[vnodeCount + 1];
    for (int i = 0; i < n; i++) {
      starts[vnode(keys[i]) + 1]++;
    }
    for (int v = 0; v < vnodeCount; v++) {
      starts[v + 1] += starts[v];
    }
    int[] next = Arrays.copyOf(starts, vnodeCount);
    for (int i = 0; i < n; i++) {
      order[next[vnode(keys[i])]++] = i;
    }
    int[] scratch = new int[n];
    for (int v = 0; v < vnodeCount; v++) {
      sortStable(order, scratch, starts[v], starts[v + 1]);
    }
    // Equal keys are adjacent in write order: keep the last write of each.
    byte[][] k = new byte[n][];
    byte[][] v = new byte[n][];
    int m = 0;
    for (int i = 0; i < n; i++) {
      int at = order[i];
      if (i + 1 < n && Arrays.equals(keys[at], keys[order[i + 1]])) {
        continue;
      }
      k[m] = keys[at];
      v[m] = values[at] == TOMBSTONE ? null : values[at];
      m++;
    }
    Arrays.fill(keys, 0, n, null);
    Arrays.fill(values, 0, n, null);
    size = 0;
    return SortedWriteBatch.ofSorted(m == n ? k : Arrays.copyOf(k, m), m == n ? v : Arrays.copyOf(v, m));
  }

  private static int vnode(byte[] stateKey) {
    return ((stateKey[4] & 0xff) << 8) | (stateKey[5] & 0xff);
  }

  /** Stable merge sort of {@code order[from, to)} by key; runs already in order cost one comparison. */
  private void sortStable(int[] order, int[] scratch, int from, int to) {
    if (to - from < 2) {
      return;
    }
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int x = order[i];
        int j = i - 1;
        while (j >= from && Arrays.compareUnsigned(keys[order[j]], keys[x]) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = x;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    sortStable(order, scratch, from, mid);
    sortStable(order, scratch, mid, to);
    if (Arrays.compareUnsigned(keys[order[mid - 1]], keys[order[mid]]) <= 0) {
      return;
    }
    System.arraycopy(order, from, scratch, from, to - from);
    int i = from;
    int j = mid;
    for (int o = from; o < to; o++) {
      if (j >= to || (i < mid && Arrays.compareUnsigned(keys[scratch[i]], keys[scratch[j]]) <= 0)) {
        order[o] = scratch[i++];
      } else {
        order[o] = scratch[j++];
      }
    }
  }
}
