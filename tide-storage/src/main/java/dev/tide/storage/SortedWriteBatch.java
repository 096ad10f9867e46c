package dev.tide.storage;

import dev.tide.common.store.StoreKeys;
import java.util.Arrays;

/**
 * An immutable batch of one state table's writes for one epoch: keys sorted ascending (unsigned)
 * and unique, each with a value or a tombstone.
 *
 * <p>Every key and value is a slice of one {@link ByteArena}, so a batch is a handful of objects
 * however many entries it holds (the batches a node keeps until their epoch commits cost the garbage
 * collector next to nothing to trace or copy), and none is a humongous array. A {@link Builder} lays
 * entries out one after the other in key order (a sync reads them sequentially); {@link
 * #ofSortedSlices} takes an arena as its writer filled it (a memtable's), without a copy on the
 * writer's thread. Build one with a
 * {@link Builder}, {@link #ofSorted}, {@link #ofSortedSlices} or {@link WriteBuffer#freeze()}.
 *
 * <p>Thread-safety: immutable.
 */
public final class SortedWriteBatch {
  /** Estimated heap overhead per entry besides key and value bytes (four ints). */
  static final int ENTRY_OVERHEAD_BYTES = 16;

  private static final SortedWriteBatch EMPTY = new SortedWriteBatch(new ByteArena(), new int[0], new int[0], new int[0], new int[0], 0);

  private final ByteArena bytes;
  private final int[] keyOffsets; // positions in bytes
  private final int[] keyLengths;
  private final int[] valueOffsets;
  private final int[] valueLengths; // -1 = tombstone
  private final int size;

  private SortedWriteBatch(ByteArena bytes, int[] keyOffsets, int[] keyLengths, int[] valueOffsets, int[] valueLengths, int size) {
    this.bytes = bytes;
    this.keyOffsets = keyOffsets;
    this.keyLengths = keyLengths;
    this.valueOffsets = valueOffsets;
    this.valueLengths = valueLengths;
    this.size = size;
  }

  /**
   * A batch of slices of {@code bytes}, which the caller hands over and must not change again: entry
   * {@code i}'s key is {@code keyLengths[i]} bytes at position {@code keyOffsets[i]}, its value {@code
   * valueLengths[i]} bytes at {@code valueOffsets[i]} (-1: a tombstone). The keys must be ascending
   * and unique: the caller's guarantee (its sort is tested), checked only with assertions on, since
   * the check would touch every key on the caller's thread, which this constructor exists to spare.
   * The arrays are not copied either.
   *
   * @throws IllegalArgumentException if a slice lies outside {@code bytes} or an array is shorter than {@code size}
   */
  public static SortedWriteBatch ofSortedSlices(ByteArena bytes, int[] keyOffsets, int[] keyLengths, int[] valueOffsets,
      int[] valueLengths, int size) {
    if (size < 0 || keyOffsets.length < size || keyLengths.length < size || valueOffsets.length < size || valueLengths.length < size) {
      throw new IllegalArgumentException("batch of " + size + " entries needs arrays of at least that length (got "
          + keyOffsets.length + ", " + keyLengths.length + ", " + valueOffsets.length + ", " + valueLengths.length + ")");
    }
    if (size == 0) {
      return EMPTY;
    }
    for (int i = 0; i < size; i++) {
      if (!inside(bytes, keyOffsets[i], keyLengths[i]) || (valueLengths[i] != -1 && !inside(bytes, valueOffsets[i], valueLengths[i]))) {
        throw new IllegalArgumentException("entry " + i + " of the batch lies outside its arena (key at "
            + keyOffsets[i] + "+" + keyLengths[i] + ", value at " + valueOffsets[i] + "+" + valueLengths[i] + ")");
      }
    }
    SortedWriteBatch batch = new SortedWriteBatch(bytes, keyOffsets, keyLengths, valueOffsets, valueLengths, size);
    assert batch.sortedAndUnique() : "keys of " + batch + " are not ascending and unique";
    return batch;
  }

  private static boolean inside(ByteArena bytes, int position, int length) {
    byte[] a;
    try {
      a = bytes.array(position);
    } catch (IndexOutOfBoundsException e) {
      return false;
    }
    int offset = ByteArena.offset(position);
    return length >= 0 && offset <= a.length - length;
  }

  private boolean sortedAndUnique() {
    for (int i = 1; i < size; i++) {
      if (compareKey(i - 1, keyArray(i), keyOffset(i), keyLengths[i]) >= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Collects entries added in strictly increasing key order (checked: one comparison per entry, on
   * the bytes just copied) into a batch. Single use.
   */
  public static final class Builder {
    private ByteArena bytes = new ByteArena();
    private int[] keyOffsets;
    private int[] keyLengths;
    private int[] valueOffsets;
    private int[] valueLengths;
    private int size;

    /** @param entries expected entries (a hint; grows as needed) */
    public Builder(int entries) {
      int n = Math.max(1, entries);
      this.keyOffsets = new int[n];
      this.keyLengths = new int[n];
      this.valueOffsets = new int[n];
      this.valueLengths = new int[n];
    }

    /**
     * Adds an entry given as slices; {@code value} null for a tombstone.
     *
     * @throws IllegalArgumentException if the key is not greater than the previous one
     */
    public Builder add(byte[] key, int keyOff, int keyLen, byte[] value, int valueOff, int valueLen) {
      int vLen = value == null ? 0 : valueLen;
      if (size == keyOffsets.length) {
        int n = size * 2;
        keyOffsets = Arrays.copyOf(keyOffsets, n);
        keyLengths = Arrays.copyOf(keyLengths, n);
        valueOffsets = Arrays.copyOf(valueOffsets, n);
        valueLengths = Arrays.copyOf(valueLengths, n);
      }
      if (size > 0) {
        int prev = keyOffsets[size - 1];
        byte[] a = bytes.array(prev);
        int from = ByteArena.offset(prev);
        if (Arrays.compareUnsigned(a, from, from + keyLengths[size - 1], key, keyOff, keyOff + keyLen) >= 0) {
          throw new IllegalArgumentException("keys are not sorted and unique at index " + size + ": "
              + StoreKeys.toHex(Arrays.copyOfRange(a, from, from + keyLengths[size - 1])) + " then "
              + StoreKeys.toHex(Arrays.copyOfRange(key, keyOff, keyOff + keyLen)));
        }
      }
      keyLengths[size] = keyLen;
      valueLengths[size] = value == null ? -1 : vLen;
      if (keyLen + vLen <= ByteArena.PAGE) { // side by side in one page: a sync reads the entry at one place
        int at = bytes.reserve(keyLen + vLen);
        System.arraycopy(key, keyOff, bytes.array(at), ByteArena.offset(at), keyLen);
        if (value != null) {
          System.arraycopy(value, valueOff, bytes.array(at), ByteArena.offset(at) + keyLen, vLen);
        }
        keyOffsets[size] = at;
        valueOffsets[size] = at + keyLen;
      } else {
        keyOffsets[size] = bytes.append(key, keyOff, keyLen);
        valueOffsets[size] = value == null ? keyOffsets[size] : bytes.append(value, valueOff, vLen);
      }
      size++;
      return this;
    }

    public SortedWriteBatch build() {
      if (size == 0) {
        return EMPTY;
      }
      SortedWriteBatch batch = new SortedWriteBatch(bytes, keyOffsets, keyLengths, valueOffsets, valueLengths, size);
      bytes = null; // single use
      return batch;
    }
  }

  /**
   * A batch of keys sorted and unique (checked, one comparison per key); a null value is a
   * tombstone. Copies the bytes.
   */
  public static SortedWriteBatch ofSorted(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new IllegalArgumentException(keys.length + " keys but " + values.length + " values");
    }
    Builder b = new Builder(keys.length);
    for (int i = 0; i < keys.length; i++) {
      byte[] v = values[i];
      b.add(keys[i], 0, keys[i].length, v, 0, v == null ? 0 : v.length);
    }
    return b.build();
  }

  /** A batch without entries. */
  public static SortedWriteBatch empty() {
    return EMPTY;
  }

  /** Number of entries. */
  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Estimated heap bytes of the entries. */
  public long sizeBytes() {
    return bytes.capacity() + (long) size * ENTRY_OVERHEAD_BYTES;
  }

  /** A copy of the {@code i}-th key in ascending order. */
  public byte[] key(int i) {
    int from = keyOffset(i);
    return Arrays.copyOfRange(keyArray(i), from, from + keyLengths[i]);
  }

  /** Whether entry {@code i} deletes its key. */
  public boolean isTombstone(int i) {
    return valueLengths[i] < 0;
  }

  /** A copy of the value of entry {@code i}, or null for a tombstone. */
  public byte[] value(int i) {
    if (valueLengths[i] < 0) {
      return null;
    }
    int from = valueOffset(i);
    return Arrays.copyOfRange(valueArray(i), from, from + valueLengths[i]);
  }

  /** The array entry {@code i}'s key is a slice of; never modify it. */
  byte[] keyArray(int i) {
    return bytes.array(keyOffsets[i]);
  }

  int keyOffset(int i) {
    return ByteArena.offset(keyOffsets[i]);
  }

  /** The array entry {@code i}'s value is a slice of (a tombstone's: any); never modify it. */
  byte[] valueArray(int i) {
    return valueLengths[i] < 0 ? keyArray(i) : bytes.array(valueOffsets[i]);
  }

  int keyLength(int i) {
    return keyLengths[i];
  }

  int valueOffset(int i) {
    return valueLengths[i] < 0 ? keyOffset(i) : ByteArena.offset(valueOffsets[i]);
  }

  /** Length of entry {@code i}'s value; 0 for a tombstone. */
  int valueLength(int i) {
    return Math.max(0, valueLengths[i]);
  }

  private int compareKey(int i, byte[] key) {
    return compareKey(i, key, 0, key.length);
  }

  private int compareKey(int i, byte[] key, int from, int length) {
    int at = keyOffset(i);
    return Arrays.compareUnsigned(keyArray(i), at, at + keyLengths[i], key, from, from + length);
  }

  /** Index of the first key {@code >= key}; {@link #size()} if none. */
  int ceil(byte[] key) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (compareKey(mid, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Index of {@code key}, or -1 (a range check first keeps misses cheap). */
  int indexOf(byte[] key) {
    int n = size;
    if (n == 0 || compareKey(0, key) > 0 || compareKey(n - 1, key) < 0) {
      return -1;
    }
    int i = ceil(key);
    return i < n && compareKey(i, key) == 0 ? i : -1;
  }

  @Override
  public String toString() {
    return "SortedWriteBatch(" + size + " entries"
        + (size == 0 ? "" : ", " + StoreKeys.toHex(key(0)) + ".." + StoreKeys.toHex(key(size - 1))) + ")";
  }
}
