package dev.tide.stream.state;

import dev.tide.storage.SortedWriteBatch;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One state table's writes since its last commit: the last write of a key wins, a delete is the
 * {@link #TOMBSTONE} value. Keys are state keys of one table: {@code table_id (4 B) | vnode (2 B) |
 * pk}, with vnodes below the table's vnode count.
 *
 * <p>Writes go to a log (one entry per key, overwritten in place) with a hash index for point
 * reads. Sorting is deferred: range reads catch a sorted map up with the log entries written since
 * the last range read, and {@link #drain} sorts the log once per epoch — by vnode with a counting
 * sort, then within each vnode by a merge sort that costs one comparison per key when keys came in
 * order (rising row ids). So a table that is never range-read (a materialized view, an aggregation's
 * result table) never pays for a sorted map.
 *
 * <p>Thread-safety: confined to the actor thread.
 */
final class Memtable {
  /** The value of a delete; compared by identity. */
  static final byte[] TOMBSTONE = new byte[0];

  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int vnodeCount;
  private byte[][] keys = new byte[64][];
  private byte[][] values = new byte[64][];
  private int[] hashes = new int[64];
  private int size;
  private int[] slots = new int[128]; // log index + 1; 0 = empty
  private TreeMap<byte[], byte[]> sorted; // log entries [0, sortedUpTo) for range reads; null until the first
  private int sortedUpTo;

  Memtable(int vnodeCount) {
    this.vnodeCount = vnodeCount;
  }

  void put(byte[] key, byte[] value) {
    int h = hash(key);
    int mask = slots.length - 1;
    int i = h & mask;
    for (int s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = s - 1;
      if (hashes[at] == h && Arrays.equals(keys[at], key)) {
        values[at] = value;
        if (at < sortedUpTo) {
          sorted.put(keys[at], value);
        }
        return;
      }
    }
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      values = Arrays.copyOf(values, size * 2);
      hashes = Arrays.copyOf(hashes, size * 2);
    }
    keys[size] = key;
    values[size] = value;
    hashes[size] = h;
    slots[i] = ++size;
    if (size * 2 > slots.length) {
      rehash(slots.length * 2);
    }
  }

  /** The value written at {@code key} ({@link #TOMBSTONE} for a delete), or null if not written. */
  byte[] get(byte[] key) {
    int h = hash(key);
    int mask = slots.length - 1;
    for (int i = h & mask, s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = s - 1;
      if (hashes[at] == h && Arrays.equals(keys[at], key)) {
        return values[at];
      }
    }
    return null;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The writes with keys in {@code [from, to)} ({@code to} null for no bound), as a sorted view. */
  NavigableMap<byte[], byte[]> range(byte[] from, byte[] to) {
    if (sorted == null) {
      sorted = new TreeMap<>(Arrays::compareUnsigned);
    }
    for (; sortedUpTo < size; sortedUpTo++) {
      sorted.put(keys[sortedUpTo], values[sortedUpTo]);
    }
    return to == null ? sorted.tailMap(from, true) : sorted.subMap(from, true, to, false);
  }

  /** The writes as a batch (tombstones as null values), leaving this memtable empty. */
  SortedWriteBatch drain() {
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
    long[] heads = new long[n];
    for (int i = 0; i < n; i++) {
      heads[i] = head(keys[i]);
    }
    for (int v = 0; v < vnodeCount; v++) {
      sortStable(order, scratch, heads, starts[v], starts[v + 1]);
    }
    byte[][] k = new byte[n][];
    byte[][] v = new byte[n][];
    for (int i = 0; i < n; i++) {
      int at = order[i];
      k[i] = keys[at];
      v[i] = values[at] == TOMBSTONE ? null : values[at];
    }
    Arrays.fill(keys, 0, n, null);
    Arrays.fill(values, 0, n, null);
    size = 0;
    Arrays.fill(slots, 0);
    sorted = null;
    sortedUpTo = 0;
    return SortedWriteBatch.ofSorted(k, v);
  }

  private void rehash(int capacity) {
    slots = new int[capacity];
    int mask = capacity - 1;
    for (int at = 0; at < size; at++) {
      int i = hashes[at] & mask;
      while (slots[i] != 0) {
        i = (i + 1) & mask;
      }
      slots[i] = at + 1;
    }
  }

  /**
   * The 8 key bytes after table id and vnode, big-endian, zero-padded: comparing heads unsigned
   * orders keys whose heads differ as their bytes do (equal heads need the full comparison).
   */
  private static long head(byte[] stateKey) {
    long h = 0;
    for (int i = 6; i < 14; i++) {
      h = (h << 8) | (i < stateKey.length ? stateKey[i] & 0xff : 0);
    }
    return h;
  }

  private int compare(long[] heads, int a, int b) {
    int c = Long.compareUnsigned(heads[a], heads[b]);
    return c != 0 ? c : Arrays.compareUnsigned(keys[a], keys[b]);
  }

  private static int vnode(byte[] stateKey) {
    return ((stateKey[4] & 0xff) << 8) | (stateKey[5] & 0xff);
  }

  /** MurmurHash64A-style mix of the key's bytes, folded to an int. */
  private static int hash(byte[] a) {
    final long m = 0xc6a4a7935bd1e995L;
    int len = a.length;
    long h = len * m;
    int end = len & ~7;
    for (int i = 0; i < end; i += 8) {
      long k = (long) LONG_LE.get(a, i);
      k *= m;
      k ^= k >>> 47;
      k *= m;
      h ^= k;
      h *= m;
    }
    for (int i = end; i < len; i++) {
      h = (h ^ (a[i] & 0xff)) * m;
    }
    h ^= h >>> 47;
    h *= m;
    h ^= h >>> 47;
    return (int) (h ^ (h >>> 32));
  }

  /** Stable merge sort of {@code order[from, to)} by key; runs already in order cost one comparison. */
  private void sortStable(int[] order, int[] scratch, long[] heads, int from, int to) {
    if (to - from < 2) {
      return;
    }
    if (to - from <= 16) {
      for (int i = from + 1; i < to; i++) {
        int x = order[i];
        int j = i - 1;
        while (j >= from && compare(heads, order[j], x) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = x;
      }
      return;
    }
    int mid = (from + to) >>> 1;
    sortStable(order, scratch, heads, from, mid);
    sortStable(order, scratch, heads, mid, to);
    if (compare(heads, order[mid - 1], order[mid]) <= 0) {
      return;
    }
    System.arraycopy(order, from, scratch, from, to - from);
    int i = from;
    int j = mid;
    for (int o = from; o < to; o++) {
      if (j >= to || (i < mid && compare(heads, scratch[i], scratch[j]) <= 0)) {
        order[o] = scratch[i++];
      } else {
        order[o] = scratch[j++];
      }
    }
  }
}
