package dev.tide.storage;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Mutable builder of a {@link SortedWriteBatch}: puts and deletes in any order, the later write
 * to a key wins. The buffer takes ownership of the arrays passed in: callers must not modify them
 * afterwards.
 *
 * <p>Thread-safety: confined to one thread (the actor owning the state table).
 */
public final class WriteBuffer {
  private static final byte[] TOMBSTONE = new byte[0]; // identity marks a delete
  /** Estimated heap overhead of a buffered entry besides its bytes (a tree map entry and two arrays). */
  private static final int ENTRY_OVERHEAD_BYTES = 48;

  private final TreeMap<byte[], byte[]> entries = new TreeMap<>(Arrays::compareUnsigned);
  private long sizeBytes;

  /** Writes {@code value} (possibly empty, not null) at {@code key}. */
  public void put(byte[] key, byte[] value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value is null; use delete(key) to remove a key");
    account(key, entries.put(key, value), value);
  }

  /** Deletes {@code key}: a tombstone that hides older values. */
  public void delete(byte[] key) {
    Objects.requireNonNull(key, "key");
    account(key, entries.put(key, TOMBSTONE), TOMBSTONE);
  }

  private void account(byte[] key, byte[] old, byte[] value) {
    if (old == null) {
      sizeBytes += key.length + ENTRY_OVERHEAD_BYTES;
    } else {
      sizeBytes -= old.length;
    }
    sizeBytes += value.length;
  }

  /** Whether this buffer holds a put or a delete of {@code key}. */
  public boolean contains(byte[] key) {
    return entries.containsKey(key);
  }

  /** The value buffered for {@code key}; null if the key is deleted here or not written. */
  public byte[] get(byte[] key) {
    byte[] v = entries.get(key);
    return v == TOMBSTONE ? null : v;
  }

  /** Number of distinct keys written. */
  public int size() {
    return entries.size();
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Estimated heap bytes of the buffered entries. */
  public long sizeBytes() {
    return sizeBytes;
  }

  /** Returns the buffered writes as an immutable batch and empties this buffer for reuse. */
  public SortedWriteBatch freeze() {
    if (entries.isEmpty()) {
      return SortedWriteBatch.empty();
    }
    SortedWriteBatch.Builder batch = new SortedWriteBatch.Builder(entries.size());
    for (Map.Entry<byte[], byte[]> e : entries.entrySet()) {
      byte[] k = e.getKey();
      byte[] v = e.getValue() == TOMBSTONE ? null : e.getValue();
      batch.add(k, 0, k.length, v, 0, v == null ? 0 : v.length);
    }
    entries.clear();
    sizeBytes = 0;
    return batch.build();
  }
}
