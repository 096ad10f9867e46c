package dev.tide.stream.state;

import dev.tide.storage.ByteArena;
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
 * reads. The log copies keys and values into one byte arena per epoch ({@link ByteArena}: pages
 * of 256 KiB, none a humongous object), so the writes of an epoch are not millions of small arrays
 * the garbage collector must copy while they wait for their barrier, nor one huge one. A value overwritten by one of the same length is overwritten in place; otherwise the new
 * one is appended. Sorting is deferred: range reads catch a sorted index (a copy of each key,
 * mapped to its log entry, whose value is read when the range is) up with the log entries written
 * since the last range read, and {@link #drain} sorts the log once per epoch — by vnode with a
 * counting sort, then within each vnode by a merge sort that costs one comparison per key when keys
 * came in order (rising row ids) — and hands the arena to the batch with the entries' offsets in
 * key order, without copying a byte (the copy into files happens at the sync, on the uploader's
 * thread), unless most of the arena is dead (overwritten values): then the live entries are copied
 * into a batch of their own and the arena is reused. So a table that is never range-read (a
 * materialized view, an aggregation's result table) never pays for a sorted map, and a table
 * written once per key and epoch pays a sort of offsets at its barrier.
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
  private static final int SUPERSEDED = -3; // an appended entry whose key was written again later

  private final int vnodeCount;
  private ByteArena arena = new ByteArena();
  private int[] keyOffsets = new int[64]; // positions in the arena, as are valueOffsets
  private int[] keyLengths = new int[64];
  private int[] valueOffsets = new int[64];
  private int[] valueLengths = new int[64]; // TOMBSTONE_LENGTH; DROPPED: deleted, and never in the store; SUPERSEDED
  private boolean[] unstored = new boolean[64]; // the store holds no version of the key (written first by putNew)
  private int size;
  // Open addressing, linear probing: hash << 32 | (log index + 1); 0 = empty. The hash in the slot
  // lets a probe pass other keys without reading their log entries.
  private long[] slots = new long[128];
  private int indexedUpTo; // entries [0, indexedUpTo) are in the hash index; later ones were appended (keys may repeat)
  // The drain's sort arrays, kept from epoch to epoch (a large table's would be humongous arrays each time).
  private int[] order = new int[0];
  private int[] scratch = new int[0];
  private long[] heads = new long[0];
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

  /**
   * As {@link #put(byte[], int, int, byte[], int)}, without a lookup in the hash index: the entry is
   * appended to the log, and the index takes it in at the next point or range read (the log is then
   * indexed, a later write of a key superseding the earlier one) or, if none comes, {@link #drain}
   * keeps the last write of each key. For a writer that writes each key at most once between
   * drains and reads none meanwhile (an aggregation's result table at its barrier): its writes
   * skip a random access into an index of the epoch's keys. Another writer loses nothing but memory
   * (every write of a key holds log and arena space until the next read or drain).
   */
  void append(byte[] key, int keyLength, byte[] value, int valueLength) {
    addEntry(key, keyLength, value, valueLength, false);
  }

  /** Takes the appended entries into the hash index; an earlier entry of the same key is superseded. */
  private void catchUp() {
    for (; indexedUpTo < size; indexedUpTo++) {
      int at = indexedUpTo;
      byte[] a = arena.array(keyOffsets[at]);
      int from = ByteArena.offset(keyOffsets[at]);
      int hash = KeyHash.of(a, from, keyLengths[at]);
      int mask = slots.length - 1;
      int i = hash & mask;
      for (long s; (s = slots[i]) != 0; i = (i + 1) & mask) {
        int earlier = (int) s - 1;
        if ((int) (s >>> 32) == hash && keyEquals(earlier, a, from, keyLengths[at])) {
          valueLengths[earlier] = SUPERSEDED;
          break;
        }
      }
      boolean found = slots[i] != 0;
      slots[i] = (long) hash << 32 | (at + 1);
      if (!found && (at + 1) * 2 > slots.length) {
        rehash(slots.length * 2);
      }
    }
  }

  private void put(byte[] key, int keyLength, int hash, byte[] value, int valueLength, boolean isNew) {
    if (indexedUpTo < size) {
      catchUp();
    }
    int mask = slots.length - 1;
    int i = hash & mask;
    for (long s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = (int) s - 1;
      if ((int) (s >>> 32) == hash && keyEquals(at, key, keyLength)) {
        setValue(at, value, valueLength); // the sorted index maps the key to this entry already
        return;
      }
    }
    addEntry(key, keyLength, value, valueLength, isNew);
    slots[i] = (long) hash << 32 | size;
    indexedUpTo = size;
    if (size * 2 > slots.length) {
      rehash(slots.length * 2);
    }
  }

  /** Adds a log entry (not to the index). */
  private void addEntry(byte[] key, int keyLength, byte[] value, int valueLength, boolean isNew) {
    if (size == keyOffsets.length) {
      int n = size * 2;
      keyOffsets = Arrays.copyOf(keyOffsets, n);
      keyLengths = Arrays.copyOf(keyLengths, n);
      valueOffsets = Arrays.copyOf(valueOffsets, n);
      valueLengths = Arrays.copyOf(valueLengths, n);
      unstored = Arrays.copyOf(unstored, n);
    }
    keyOffsets[size] = append(key, keyLength);
    keyLengths[size] = keyLength;
    valueLengths[size] = TOMBSTONE_LENGTH;
    unstored[size] = isNew;
    setValue(size, value, valueLength);
    size++;
  }

  private void setValue(int at, byte[] value, int valueLength) {
    if (value == TOMBSTONE) {
      valueLengths[at] = unstored[at] ? DROPPED : TOMBSTONE_LENGTH;
    } else if (valueLengths[at] == valueLength) {
      System.arraycopy(value, 0, arena.array(valueOffsets[at]), ByteArena.offset(valueOffsets[at]), valueLength);
    } else {
      valueOffsets[at] = append(value, valueLength);
      valueLengths[at] = valueLength;
    }
  }

  /** Copies {@code bytes[0, length)} into the arena; returns their position. */
  private int append(byte[] bytes, int length) {
    return arena.append(bytes, 0, length);
  }

  private boolean keyEquals(int at, byte[] key, int keyLength) {
    return keyEquals(at, key, 0, keyLength);
  }

  private boolean keyEquals(int at, byte[] key, int keyFrom, int keyLength) {
    int from = ByteArena.offset(keyOffsets[at]);
    return Arrays.equals(arena.array(keyOffsets[at]), from, from + keyLengths[at], key, keyFrom, keyFrom + keyLength);
  }

  private byte[] keyCopy(int at) {
    int from = ByteArena.offset(keyOffsets[at]);
    return Arrays.copyOfRange(arena.array(keyOffsets[at]), from, from + keyLengths[at]);
  }

  /** A copy of the value of log entry {@code at} (from {@link #range}), or {@link #TOMBSTONE}. */
  byte[] valueAt(int at) {
    return valueCopy(at);
  }

  /** A copy of entry {@code at}'s value, or {@link #TOMBSTONE}. */
  private byte[] valueCopy(int at) {
    int len = valueLengths[at];
    int from = ByteArena.offset(valueOffsets[at]);
    return len < 0 ? TOMBSTONE : Arrays.copyOfRange(arena.array(valueOffsets[at]), from, from + len);
  }

  /** A copy of the value written at {@code key} ({@link #TOMBSTONE} for a delete), or null if not written. */
  byte[] get(byte[] key) {
    return get(key, key.length, KeyHash.of(key, key.length));
  }

  /** As {@link #get(byte[])} for the key {@code key[0, keyLength)}, whose {@link KeyHash} is {@code hash}. */
  byte[] get(byte[] key, int keyLength, int hash) {
    if (indexedUpTo < size) {
      catchUp();
    }
    int mask = slots.length - 1;
    int i = hash & mask;
    for (long s; (s = slots[i]) != 0; i = (i + 1) & mask) {
      int at = (int) s - 1;
      if ((int) (s >>> 32) == hash && keyEquals(at, key, keyLength)) {
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
    if (indexedUpTo < size) {
      catchUp();
    }
    if (sorted == null) {
      sorted = new TreeMap<>(Arrays::compareUnsigned);
    }
    for (; sortedUpTo < size; sortedUpTo++) { // a key written again maps to its later entry
      sorted.put(keyCopy(sortedUpTo), sortedUpTo);
    }
    return to == null ? sorted.tailMap(from, true) : sorted.subMap(from, true, to, false);
  }

  /** The writes as a batch (tombstones as null values), leaving this memtable empty. */
  SortedWriteBatch drain() {
    int n = size;
    if (order.length < n) {
      order = new int[n + n / 8];
      scratch = new int[order.length];
      heads = new long[order.length];
    }
    int[] order = this.order;
    int[] starts = new int[vnodeCount + 1];
    for (int i = 0; i < n; i++) {
      starts[vnode(i) + 1]++;
    }
    for (int v = 0; v < vnodeCount; v++) {
      starts[v + 1] += starts[v];
    }
    int[] next = Arrays.copyOf(starts, vnodeCount);
    for (int i = 0; i < n; i++) {
      order[next[vnode(i)]++] = i;
    }
    int[] scratch = this.scratch;
    long[] heads = this.heads;
    for (int i = 0; i < n; i++) {
      heads[i] = head(i);
    }
    for (int v = 0; v < vnodeCount; v++) {
      sortStable(order, scratch, heads, starts[v], starts[v + 1]);
    }
    // The batch takes the arena as it is, with the entries' offsets in key order: the actor thread
    // does not copy keys and values again (a sync reads them where they are, off this thread).
    // Unless the arena is mostly dead bytes (values overwritten by longer ones, dropped keys, room
    // to grow): then the live entries are copied out, so a batch waiting for its commit holds only them.
    int[] bKeyOffsets = new int[n];
    int[] bKeyLengths = new int[n];
    int[] bValueOffsets = new int[n];
    int[] bValueLengths = new int[n];
    int entries = 0;
    long liveBytes = 0;
    boolean mayRepeat = indexedUpTo < size; // appended entries the index never took in
    int previous = -1;
    for (int i = 0; i < n; i++) {
      int at = order[i];
      int len = valueLengths[at];
      if (len == DROPPED || len == SUPERSEDED) {
        continue;
      }
      if (mayRepeat && previous >= 0 && compare(heads, previous, at) == 0) {
        entries--; // the same key again: the sort is stable, so this is the later write, which wins
        liveBytes -= keyLengths[previous] + Math.max(0, valueLengths[previous]);
      }
      previous = at;
      bKeyOffsets[entries] = keyOffsets[at];
      bKeyLengths[entries] = keyLengths[at];
      bValueOffsets[entries] = valueOffsets[at];
      bValueLengths[entries] = len < 0 ? -1 : len;
      liveBytes += keyLengths[at] + Math.max(0, len);
      entries++;
    }
    SortedWriteBatch batch;
    if (entries == 0) {
      batch = SortedWriteBatch.empty();
    } else if (liveBytes * 2 >= arena.capacity()) {
      batch = SortedWriteBatch.ofSortedSlices(arena, bKeyOffsets, bKeyLengths, bValueOffsets, bValueLengths, entries);
      arena = new ByteArena(); // its pages come as the next epoch writes
    } else {
      SortedWriteBatch.Builder copy = new SortedWriteBatch.Builder(entries);
      for (int i = 0; i < entries; i++) {
        int len = bValueLengths[i];
        copy.add(arena.array(bKeyOffsets[i]), ByteArena.offset(bKeyOffsets[i]), bKeyLengths[i], len < 0 ? null
            : arena.array(bValueOffsets[i]), ByteArena.offset(bValueOffsets[i]), Math.max(0, len));
      }
      batch = copy.build();
      arena.reset(); // its pages stay for the next epoch
    }
    size = 0;
    indexedUpTo = 0;
    Arrays.fill(slots, 0);
    sorted = null;
    sortedUpTo = 0;
    return batch;
  }

  private void rehash(int capacity) {
    long[] old = slots;
    slots = new long[capacity];
    int mask = capacity - 1;
    for (long s : old) {
      if (s != 0) {
        int i = (int) (s >>> 32) & mask;
        while (slots[i] != 0) {
          i = (i + 1) & mask;
        }
        slots[i] = s;
      }
    }
  }

  /**
   * The 8 key bytes of entry {@code at} after table id and vnode, big-endian, zero-padded: comparing
   * heads unsigned orders keys whose heads differ as their bytes do (equal heads need the full
   * comparison).
   */
  private long head(int at) {
    byte[] a = arena.array(keyOffsets[at]);
    int from = ByteArena.offset(keyOffsets[at]);
    int len = keyLengths[at];
    long h = 0;
    for (int i = 6; i < 14; i++) {
      h = (h << 8) | (i < len ? a[from + i] & 0xff : 0);
    }
    return h;
  }

  private int compare(long[] heads, int a, int b) {
    int c = Long.compareUnsigned(heads[a], heads[b]);
    if (c != 0) {
      return c;
    }
    int fa = ByteArena.offset(keyOffsets[a]);
    int fb = ByteArena.offset(keyOffsets[b]);
    return Arrays.compareUnsigned(arena.array(keyOffsets[a]), fa, fa + keyLengths[a], arena.array(keyOffsets[b]), fb, fb + keyLengths[b]);
  }

  private int vnode(int at) {
    byte[] a = arena.array(keyOffsets[at]);
    int from = ByteArena.offset(keyOffsets[at]);
    return ((a[from + 4] & 0xff) << 8) | (a[from + 5] & 0xff);
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
