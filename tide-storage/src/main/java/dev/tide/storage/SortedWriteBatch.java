package dev.tide.storage;

import dev.tide.common.store.StoreKeys;
import java.util.Arrays;

/**
 * An immutable batch of one state table's writes for one epoch: keys sorted ascending (unsigned)
 * and unique, each with a value or a tombstone.
 *
 * <p>Every key and value is a slice of one byte array, so a batch is a handful of objects however
 * many entries it holds: the batches a node keeps until their epoch commits cost the garbage
 * collector next to nothing to trace or copy. A {@link Builder} lays entries out one after the
 * other in key order (a sync reads them sequentially); {@link #ofSortedSlices} takes an array as its
 * writer filled it (a memtable's arena), without a copy on the writer's thread. Build one with a
 * {@link Builder}, {@link #ofSorted}, {@link #ofSortedSlices} or {@link WriteBuffer#freeze()}.
 *
 * <p>Thread-safety: immutable.
 */
public final class SortedWriteBatch {
  /** Estimated heap overhead per entry besides key and value bytes (four ints). */
  static final int ENTRY_OVERHEAD_BYTES = 16;

  private static final SortedWriteBatch EMPTY = new SortedWriteBatch(new byte[0], new int[0], new int[0], new int[0], new int[0], 0);

  private final byte[] bytes;
  private final int[] keyOffsets;
  private final int[] keyLengths;
  private final int[] valueOffsets;
  private final int[] valueLengths; // -1 = tombstone
  private final int size;

  private SortedWriteBatch(byte[] bytes, int[] keyOffsets, int[] keyLengths, int[] valueOffsets, int[] valueLengths, int size) {
    this.bytes = bytes;
    this.keyOffsets = keyOffsets;
    this.keyLengths = keyLengths;
    this.valueOffsets = valueOffsets;
    this.valueLengths = valueLengths;
    this.size = size;
  }

  /**
   * A batch of slices of {@code bytes}, which the caller hands over and must not change again: entry
   * {@code i}'s key is {@code keyLengths[i]} bytes at {@code keyOffsets[i]}, its value {@code
   * valueLengths[i]} bytes at {@code valueOffsets[i]} (-1: a tombstone). The keys must be ascending
   * and unique: the caller's guarantee (its sort is tested), checked only with assertions on, since
   * the check would touch every key on the caller's thread, which this constructor exists to spare.
   * The arrays are not copied either.
   *
   * @throws IllegalArgumentException if a slice lies outside {@code bytes} or an array is shorter than {@code size}
   */
  public static SortedWriteBatch ofSortedSlices(byte[] bytes, int[] keyOffsets, int[] keyLengths, int[] valueOffsets,
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
        throw new IllegalArgumentException("entry " + i + " of the batch lies outside its " + bytes.length + " bytes (key at "
            + keyOffsets[i] + "+" + keyLengths[i] + ", value at " + valueOffsets[i] + "+" + valueLengths[i] + ")");
      }
    }
    SortedWriteBatch batch = new SortedWriteBatch(bytes, keyOffsets, keyLengths, valueOffsets, valueLengths, size);
    assert batch.sortedAndUnique() : "keys of " + batch + " are not ascending and unique";
    return batch;
  }

  private static boolean inside(byte[] bytes, int offset, int length) {
    return offset >= 0 && length >= 0 && offset <= bytes.length - length;
  }

  private boolean sortedAndUnique() {
    for (int i = 1; i < size; i++) {
      int a = keyOffsets[i - 1];
      int b = keyOffsets[i];
      if (Arrays.compareUnsigned(bytes, a, a + keyLengths[i - 1], bytes, b, b + keyLengths[i]) >= 0) {
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
    private byte[] bytes;
    private int[] keyOffsets;
    private int[] keyLengths;
    private int[] valueOffsets;
    private int[] valueLengths;
    private int size;
    private int used;

    /** @param entries expected entries and {@code bytes} expected key and value bytes (hints; both grow as needed) */
    public Builder(int entries, int bytes) {
      this.bytes = new byte[Math.max(0, bytes)];
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
      if (bytes.length - used < keyLen + vLen) {
        bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) bytes.length * 2, (long) used + keyLen + vLen)));
      }
      if (size > 0) {
        int prev = keyOffsets[size - 1];
        if (Arrays.compareUnsigned(bytes, prev, prev + keyLengths[size - 1], key, keyOff, keyOff + keyLen) >= 0) {
          throw new IllegalArgumentException("keys are not sorted and unique at index " + size + ": "
              + StoreKeys.toHex(Arrays.copyOfRange(bytes, prev, prev + keyLengths[size - 1])) + " then "
              + StoreKeys.toHex(Arrays.copyOfRange(key, keyOff, keyOff + keyLen)));
        }
      }
      System.arraycopy(key, keyOff, bytes, used, keyLen);
      keyOffsets[size] = used;
      keyLengths[size] = keyLen;
      used += keyLen;
      valueOffsets[size] = used;
      if (value == null) {
        valueLengths[size] = -1;
      } else {
        System.arraycopy(value, valueOff, bytes, used, vLen);
        valueLengths[size] = vLen;
        used += vLen;
      }
      size++;
      return this;
    }

    public SortedWriteBatch build() {
      if (size == 0) {
        return EMPTY;
      }
      byte[] b = used == bytes.length ? bytes : Arrays.copyOf(bytes, used);
      SortedWriteBatch batch = new SortedWriteBatch(b, keyOffsets, keyLengths, valueOffsets, valueLengths, size);
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
    long bytes = 0;
    for (int i = 0; i < keys.length; i++) {
      bytes += keys[i].length + (values[i] == null ? 0 : values[i].length);
    }
    Builder b = new Builder(keys.length, (int) Math.min(bytes, Integer.MAX_VALUE - 8));
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
    return bytes.length + (long) size * ENTRY_OVERHEAD_BYTES;
  }

  /** A copy of the {@code i}-th key in ascending order. */
  public byte[] key(int i) {
    return Arrays.copyOfRange(bytes, keyOffsets[i], keyOffsets[i] + keyLengths[i]);
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
    return Arrays.copyOfRange(bytes, from, from + valueLengths[i]);
  }

  /** The array every key and value of this batch is a slice of; never modify it. */
  byte[] bytes() {
    return bytes;
  }

  int keyOffset(int i) {
    return keyOffsets[i];
  }

  int keyLength(int i) {
    return keyLengths[i];
  }

  int valueOffset(int i) {
    return valueOffsets[i];
  }

  /** Length of entry {@code i}'s value; 0 for a tombstone. */
  int valueLength(int i) {
    return Math.max(0, valueLengths[i]);
  }

  private int compareKey(int i, byte[] key) {
    int from = keyOffsets[i];
    return Arrays.compareUnsigned(bytes, from, from + keyLengths[i], key, 0, key.length);
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
