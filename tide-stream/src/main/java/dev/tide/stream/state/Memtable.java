package dev.tide.stream.state;

import dev.tide.storage.SortedWriteBatch;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One state table's writes since its last commit: the last write of a key wins, a delete is the
 * {@link #TOMBSTONE} value. Keys are state keys of one table: {@code table_id (4 B) | vnode (2 B) |
 * pk}, with vnodes below the table's vnode count.
 *
 * <p>Writes go to a log (one entry per key, overwritten in place) with a hash index for point
 * reads. The log copies keys and values into one byte arena, reused from epoch to epoch, so the
 * writes of an epoch are not millions of small arrays the garbage collector must copy while they
 * wait for their barrier. A value overwritten by one of the same length is overwritten in place;
 * otherwise the new one is appended. Sorting is deferred: range reads catch a sorted index (a copy
 * of each key, mapped to its log entry, whose value is read when the range is) up with the log
 * entries written since the last range read, and {@link #drain} sorts the
 * log once per epoch — by vnode with a counting sort, then within each vnode by a merge sort that
 * costs one comparison per key when keys came in order (rising row ids) — and copies it, in key
 * order, into one batch. So a table that is never range-read (a materialized view, an
 * aggregation's result table) never pays for a sorted map.
 *
 * <p>A key written first by {@link #putNew} (its writer vouches that the store holds no version of
 * it, e.g. a new row of an append-only input keyed by its row id) and deleted in the same epoch
 * leaves nothing: no tombstone reaches the store, which has nothing to hide. A window's rows that
 * come and go within one epoch (a join forgetting closed windows) then cost the store nothing.
 *
 * <p>Thread-safety: confined to the actor thread.
 */
final class Memtable {
  /** The value of a delete; compared by identity. */
  static final byte[] TOMBSTONE = new byte[0];
  private static final int TOMBSTONE_LENGTH = -1;
  private static final int DROPPED = -2;
  /** An arena larger than this is not kept for the next epoch when that epoch used a quarter of it or less. */
  private static final int KEEP_ARENA_BYTES = 1 << 20;

  private final int vnodeCount;
  private byte[] arena = new byte[4096];
  private int arenaUsed;
  private int[] keyOffsets = new int[64];
  private int[] keyLengths = new int[64];
  private int[] valueOffsets = new int[64];
  private int[] valueLengths = new int[64]; // TOMBSTONE_LENGTH, or DROPPED: deleted, and never in the store
  private boolean[] unstored = new boolean[64]; // the store holds no version of the key (written first by putNew)
  private int[] hashes = new int[64];
  private int size;
  private int[] slots = new int[128]; // log index + 1; 0 = empty
  private TreeMap<byte[], Integer> sorted; // key -> log entry, of entries [0, sortedUpTo), for range reads; null until the first
  private int sortedUpTo;

  Memtable(int vnodeCount) {
    this.vnodeCount = vnodeCount;
  }

  /** Writes {@code value} ({@link #TOMBSTONE} for a delete) at {@code key}; both arrays are copied. */
  void put(byte[] key, byte[] value) {
    put(key, key.length, KeyHash.of(key, key.length), value, value.length);
  }

  /**
   * Writes the value {@code value[0, valueLength)} ({@link #TOMBSTONE} for a delete) at the key {@code
   * key[0, keyLength)}, whose {@link KeyHash} is {@code hash}; the bytes are copied, so the caller may
   * reuse both arrays.
   */
  void put(byte[] key, int keyLength, int hash, byte[] value, int valueLength) {
    put(key, keyLength, hash, value, valueLength, false);
  }

  /**
   * As {@link #put(byte[], int, int, byte[], int)} for a key the store holds no version of (the
   * caller's guarantee): deleted again before {@link #drain}, it is dropped rather than tombstoned.
   */
  void putNew(byte[] key, int keyLength, int hash, byte[] value, int valueLength) {
    put(key, keyLength, hash, value, valueLength, true);
  }

  private void put(byte[] key, int keyLength, int hash, byte[] value, int valueLength, boolean isNew) {
    int h = hash;
    int mask = slots.length - 1;
    int i = h & mask;
    for (int s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = s - 1;
      if (hashes[at] == h && keyEquals(at, key, keyLength)) {
        setValue(at, value, valueLength); // the sorted index maps the key to this entry already
        return;
      }
    }
    if (size == keyOffsets.length) {
      int n = size * 2;
      keyOffsets = Arrays.copyOf(keyOffsets, n);
      keyLengths = Arrays.copyOf(keyLengths, n);
      valueOffsets = Arrays.copyOf(valueOffsets, n);
      valueLengths = Arrays.copyOf(valueLengths, n);
      unstored = Arrays.copyOf(unstored, n);
      hashes = Arrays.copyOf(hashes, n);
    }
    keyOffsets[size] = append(key, keyLength);
    keyLengths[size] = keyLength;
    valueLengths[size] = TOMBSTONE_LENGTH;
    unstored[size] = isNew;
    setValue(size, value, valueLength);
    hashes[size] = h;
    slots[i] = ++size;
    if (size * 2 > slots.length) {
      rehash(slots.length * 2);
    }
  }

  private void setValue(int at, byte[] value, int valueLength) {
    if (value == TOMBSTONE) {
      valueLengths[at] = unstored[at] ? DROPPED : TOMBSTONE_LENGTH;
    } else if (valueLengths[at] == valueLength) {
      System.arraycopy(value, 0, arena, valueOffsets[at], valueLength);
    } else {
      valueOffsets[at] = append(value, valueLength);
      valueLengths[at] = valueLength;
    }
  }

  /** Copies {@code bytes[0, length)} to the end of the arena; returns where they start. */
  private int append(byte[] bytes, int length) {
    if (arena.length - arenaUsed < length) {
      long grown = Math.max((long) arena.length * 2, (long) arenaUsed + length);
      if (grown > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("memtable of " + size + " keys exceeds 2 GiB of keys and values in one epoch;"
            + " barriers must come more often");
      }
      arena = Arrays.copyOf(arena, (int) grown);
    }
    int at = arenaUsed;
    System.arraycopy(bytes, 0, arena, at, length);
    arenaUsed += length;
    return at;
  }

  private boolean keyEquals(int at, byte[] key, int keyLength) {
    int from = keyOffsets[at];
    return Arrays.equals(arena, from, from + keyLengths[at], key, 0, keyLength);
  }

  private byte[] keyCopy(int at) {
    return Arrays.copyOfRange(arena, keyOffsets[at], keyOffsets[at] + keyLengths[at]);
  }

  /** A copy of the value of log entry {@code at} (from {@link #range}), or {@link #TOMBSTONE}. */
  byte[] valueAt(int at) {
    return valueCopy(at);
  }

  /** A copy of entry {@code at}'s value, or {@link #TOMBSTONE}. */
  private byte[] valueCopy(int at) {
    int len = valueLengths[at];
    return len < 0 ? TOMBSTONE : Arrays.copyOfRange(arena, valueOffsets[at], valueOffsets[at] + len);
  }

  /** A copy of the value written at {@code key} ({@link #TOMBSTONE} for a delete), or null if not written. */
  byte[] get(byte[] key) {
    return get(key, key.length, KeyHash.of(key, key.length));
  }

  /** As {@link #get(byte[])} for the key {@code key[0, keyLength)}, whose {@link KeyHash} is {@code hash}. */
  byte[] get(byte[] key, int keyLength, int hash) {
    int h = hash;
    int mask = slots.length - 1;
    for (int i = h & mask, s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = s - 1;
      if (hashes[at] == h && keyEquals(at, key, keyLength)) {
        return valueCopy(at);
      }
    }
    return null;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /**
   * The keys written in {@code [from, to)} ({@code to} null for no bound), sorted, each mapped to its
   * log entry: {@link #valueAt} reads the value (as written last, so read it before writing again).
   */
  NavigableMap<byte[], Integer> range(byte[] from, byte[] to) {
    if (sorted == null) {
      sorted = new TreeMap<>(Arrays::compareUnsigned);
    }
    for (; sortedUpTo < size; sortedUpTo++) {
      sorted.put(keyCopy(sortedUpTo), sortedUpTo);
    }
    return to == null ? sorted.tailMap(from, true) : sorted.subMap(from, true, to, false);
  }

  /** The writes as a batch (tombstones as null values), leaving this memtable empty. */
  SortedWriteBatch drain() {
    int n = size;
    int[] order = new int[n];
    int[] starts = new int[vnodeCount + 1];
    for (int i = 0; i < n; i++) {
      starts[vnode(i) + 1]++;
    }
    for (int v = 0; v < vnodeCount; v++) {
      starts[v + 1] += starts[v];
    }
    int[] next = Arrays.copyOf(starts, vnodeCount);
    long bytes = 0;
    for (int i = 0; i < n; i++) {
      order[next[vnode(i)]++] = i;
      bytes += keyLengths[i] + Math.max(0, valueLengths[i]);
    }
    int[] scratch = new int[n];
    long[] heads = new long[n];
    for (int i = 0; i < n; i++) {
      heads[i] = head(i);
    }
    for (int v = 0; v < vnodeCount; v++) {
      sortStable(order, scratch, heads, starts[v], starts[v + 1]);
    }
    SortedWriteBatch.Builder batch = new SortedWriteBatch.Builder(n, (int) bytes);
    for (int i = 0; i < n; i++) {
      int at = order[i];
      int len = valueLengths[at];
      if (len == DROPPED) {
        continue;
      }
      batch.add(arena, keyOffsets[at], keyLengths[at], len < 0 ? null : arena, valueOffsets[at], Math.max(0, len));
    }
    if (arena.length > KEEP_ARENA_BYTES && arenaUsed <= arena.length / 4) {
      arena = new byte[KEEP_ARENA_BYTES];
    }
    arenaUsed = 0;
    size = 0;
    Arrays.fill(slots, 0);
    sorted = null;
    sortedUpTo = 0;
    return batch.build();
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
   * The 8 key bytes of entry {@code at} after table id and vnode, big-endian, zero-padded: comparing
   * heads unsigned orders keys whose heads differ as their bytes do (equal heads need the full
   * comparison).
   */
  private long head(int at) {
    int from = keyOffsets[at];
    int len = keyLengths[at];
    long h = 0;
    for (int i = 6; i < 14; i++) {
      h = (h << 8) | (i < len ? arena[from + i] & 0xff : 0);
    }
    return h;
  }

  private int compare(long[] heads, int a, int b) {
    int c = Long.compareUnsigned(heads[a], heads[b]);
    if (c != 0) {
      return c;
    }
    int fa = keyOffsets[a];
    int fb = keyOffsets[b];
    return Arrays.compareUnsigned(arena, fa, fa + keyLengths[a], arena, fb, fb + keyLengths[b]);
  }

  private int vnode(int at) {
    int from = keyOffsets[at];
    return ((arena[from + 4] & 0xff) << 8) | (arena[from + 5] & 0xff);
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
